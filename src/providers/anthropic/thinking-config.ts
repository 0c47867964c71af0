import type { ModelReasoningSettings, ReasoningEffort } from '../../config/gateway-config.js';
import { anthropicLevel, MIN_THINKING_BUDGET } from '../../config/protocol-reasoning.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { clientThinkingBudget, thinkingBudgetOf } from '../../protocol/openai/thinking-budget.js';

/** The body fields that turn thinking on. */
export interface ThinkingFields {
  readonly thinking: { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };
  readonly effort?: string;
}

/**
 * The effort as Anthropic thinking (provider-protocols 4.3, 6.5; docs/reasoning.md).
 * `none` leaves thinking off (no `thinking` field: the one form every model takes). Style
 * `budget` (Claude ≤ 4.5): `{type: "enabled", budget_tokens}` with the client's
 * `reasoning.max_tokens` (raised to Anthropic's 1024 floor; 0: off) or the model's budget
 * for the effort, kept below `max_tokens`; when `max_tokens` leaves no room for the floor,
 * thinking is left off rather than sent invalid. Style `level` (Claude ≥ 4.6, and the only
 * form on 4.7/5): `{type: "adaptive"}` plus `output_config.effort`.
 */
export function thinkingFor(
  request: ChatRequest,
  effort: ReasoningEffort | undefined,
  settings: ModelReasoningSettings | undefined,
  maxTokens: number,
): ThinkingFields | undefined {
  if (effort === undefined || settings === undefined) return undefined;
  if (settings.style === 'level') {
    if (effort === 'none') return undefined;
    return { thinking: { type: 'adaptive' }, effort: anthropicLevel(settings, effort) };
  }
  if (effort === 'none' && clientThinkingBudget(request) === undefined) return undefined;
  const wanted = thinkingBudgetOf(request, settings, effort) ?? 0;
  if (wanted === 0) return undefined;
  const budget = Math.min(Math.max(wanted, MIN_THINKING_BUDGET), maxTokens - 1);
  if (budget < MIN_THINKING_BUDGET) return undefined;
  return { thinking: { type: 'enabled', budget_tokens: budget } };
}
