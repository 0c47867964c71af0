import type { ModelReasoningSettings, ReasoningEffort } from '../../config/gateway-config.js';
import { effortBudget } from '../../config/reasoning-efforts.js';
import type { ChatRequest } from './chat-request-schema.js';

/** The client's explicit thinking budget, OpenRouter's `reasoning.max_tokens` (provider-protocols 3.4), if it sent one. */
export function clientThinkingBudget(request: ChatRequest): number | undefined {
  const budget = request.reasoning?.max_tokens;
  return typeof budget === 'number' ? budget : undefined;
}

/**
 * Thinking tokens a request asks of a model (PRODUCT.md decision 19): the client's
 * `reasoning.max_tokens`, which wins over the effort, else the model's budget for the
 * effort (0 for `none` by default). Undefined for a model without reasoning. Budget-style
 * nodes are sent it; every request without a client cap gets room for it (outputCapOf).
 */
export function thinkingBudgetOf(
  request: ChatRequest,
  settings: ModelReasoningSettings | undefined,
  effort: ReasoningEffort | undefined,
): number | undefined {
  if (settings === undefined || effort === undefined) return undefined;
  return clientThinkingBudget(request) ?? effortBudget(settings, effort);
}
