import type { ModelConfig } from '../../config/gateway-config.js';
import type { ProviderAdapter } from '../types.js';
import { toError } from './errors.js';
import { fromUpstream } from './from-upstream.js';
import { createStreamMapper } from './stream-mapper.js';
import { GEMINI_LEVELS } from './thinking-config.js';
import { toUpstream } from './to-upstream.js';

/** Reasoning levels Gemini does not know (`xhigh`, `max`). */
function checkModel(model: ModelConfig): { path: string; problem: string } | undefined {
  const reasoning = model.reasoning;
  if (reasoning === undefined || reasoning.style !== 'level') return undefined;
  for (const effort of ['low', 'medium', 'high'] as const) {
    if (!GEMINI_LEVELS.has(reasoning.levels[effort])) {
      return { path: `reasoning.levels.${effort}`, problem: `"${reasoning.levels[effort]}" is not a Gemini thinking level (minimal, low, medium, high)` };
    }
  }
  return undefined;
}

/** The Gemini API (`POST {base_url}/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`). */
export const geminiAdapter: ProviderAdapter = {
  protocol: 'gemini',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  toUpstream,
  fromUpstream,
  streamMapper: createStreamMapper,
  toError,
  checkModel,
};
