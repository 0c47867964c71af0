import type { ModelReasoningSettings, ReasoningEffort } from '../../config/gateway-config.js';

/** Anthropic's smallest thinking budget (provider-protocols 4.3). */
export const MIN_THINKING_BUDGET = 1024;

/** Levels `output_config.effort` accepts (provider-protocols 4.2). */
export const ANTHROPIC_EFFORTS: ReadonlySet<string> = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

/** The body fields that turn thinking on. */
export interface ThinkingFields {
  readonly thinking: { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };
  readonly effort?: string;
}

/**
 * The effort as Anthropic thinking (provider-protocols 4.3, 6.5). Style `budget` (Claude
 * ≤ 4.5): `{type: "enabled", budget_tokens}` with the model's budget for the effort, kept
 * below `max_tokens`; when `max_tokens` leaves no room for the 1024-token minimum, thinking
 * is left off rather than sent invalid. Style `level` (Claude ≥ 4.6, and the only form on
 * 4.7/5): `{type: "adaptive"}` plus `output_config.effort`.
 */
export function thinkingFor(effort: ReasoningEffort | undefined, settings: ModelReasoningSettings | undefined, maxTokens: number): ThinkingFields | undefined {
  if (effort === undefined || settings === undefined) return undefined;
  if (settings.style === 'level') return { thinking: { type: 'adaptive' }, effort: settings.levels[effort] };
  const budget = Math.min(settings.budgets[effort], maxTokens - 1);
  if (budget < MIN_THINKING_BUDGET) return undefined;
  return { thinking: { type: 'enabled', budget_tokens: budget } };
}
