import type { ModelConfig } from '../../config/gateway-config.js';
import type { ProviderAdapter } from '../types.js';
import { toError } from './errors.js';
import { fromUpstream } from './from-upstream.js';
import { createStreamMapper } from './stream-mapper.js';
import { GEMINI_LEVELS, geminiLevel } from './thinking-config.js';
import { toUpstream } from './to-upstream.js';

/** The efforts every reasoning model takes; the others are checked where the model lists them. */
const TAKEN_ALWAYS: ReadonlySet<string> = new Set(['low', 'medium', 'high']);

/** Reasoning levels Gemini does not know (`xhigh`, `max`). */
function checkModel(model: ModelConfig): { path: string; problem: string } | undefined {
  const reasoning = model.reasoning;
  if (reasoning === undefined || reasoning.style !== 'level') return undefined;
  for (const effort of ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const) {
    if (!TAKEN_ALWAYS.has(effort) && reasoning.efforts?.has(effort) !== true) continue;
    const level = geminiLevel(reasoning, effort);
    if (!GEMINI_LEVELS.has(level)) {
      return {
        path: `reasoning.levels.${effort}`,
        problem: `"${level}" is not a Gemini thinking level (minimal, low, medium, high)`,
      };
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
