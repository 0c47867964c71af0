import type { ModelConfig } from '../../config/gateway-config.js';
import { effortBudget } from '../../protocol/openai/thinking-budget.js';
import type { ProviderAdapter } from '../types.js';
import { toError } from './errors.js';
import { fromUpstream } from './from-upstream.js';
import { anthropicNativeMessages } from './native-messages.js';
import { createStreamMapper } from './stream-mapper.js';
import { ANTHROPIC_EFFORTS, MIN_THINKING_BUDGET, anthropicLevel } from './thinking-config.js';
import { toUpstream } from './to-upstream.js';

/** The efforts every reasoning model takes; the others are checked where the model lists them. */
const TAKEN_ALWAYS: ReadonlySet<string> = new Set(['low', 'medium', 'high']);

/** Reasoning settings Anthropic cannot take: levels it does not know, budgets under its minimum. */
function checkModel(model: ModelConfig): { path: string; problem: string } | undefined {
  const reasoning = model.reasoning;
  if (reasoning === undefined) return undefined;
  // The efforts the model takes; `none` sends no thinking, so it has nothing to check.
  for (const effort of ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const) {
    if (!TAKEN_ALWAYS.has(effort) && reasoning.efforts?.has(effort) !== true) continue;
    const level = anthropicLevel(reasoning, effort);
    if (reasoning.style === 'level' && !ANTHROPIC_EFFORTS.has(level)) {
      return {
        path: `reasoning.levels.${effort}`,
        problem: `"${level}" is not an Anthropic effort (low, medium, high, xhigh, max)`,
      };
    }
    const budget = effortBudget(reasoning, effort);
    if (reasoning.style === 'budget' && budget < MIN_THINKING_BUDGET) {
      return {
        path: `reasoning.budgets.${effort}`,
        problem: `${budget} is below Anthropic's minimum thinking budget of ${MIN_THINKING_BUDGET}`,
      };
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
  native: { messages: anthropicNativeMessages },
};
