import type { ModelConfig } from '../../config/gateway-config.js';
import type { ProviderAdapter } from '../types.js';
import { toError } from './errors.js';
import { fromUpstream } from './from-upstream.js';
import { createStreamMapper } from './stream-mapper.js';
import { ANTHROPIC_EFFORTS, MIN_THINKING_BUDGET } from './thinking-config.js';
import { toUpstream } from './to-upstream.js';

/** Reasoning settings Anthropic cannot take: levels it does not know, budgets under its minimum. */
function checkModel(model: ModelConfig): { path: string; problem: string } | undefined {
  const reasoning = model.reasoning;
  if (reasoning === undefined) return undefined;
  for (const effort of ['low', 'medium', 'high'] as const) {
    if (reasoning.style === 'level' && !ANTHROPIC_EFFORTS.has(reasoning.levels[effort])) {
      return { path: `reasoning.levels.${effort}`, problem: `"${reasoning.levels[effort]}" is not an Anthropic effort (low, medium, high, xhigh, max)` };
    }
    if (reasoning.style === 'budget' && reasoning.budgets[effort] < MIN_THINKING_BUDGET) {
      return { path: `reasoning.budgets.${effort}`, problem: `${reasoning.budgets[effort]} is below Anthropic's minimum thinking budget of ${MIN_THINKING_BUDGET}` };
    }
  }
  return undefined;
}

/** The Anthropic Messages protocol (`POST {base_url}/messages`). */
export const anthropicAdapter: ProviderAdapter = {
  protocol: 'anthropic',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  toUpstream,
  fromUpstream,
  streamMapper: createStreamMapper,
  toError,
  checkModel,
};
