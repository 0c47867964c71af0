import type { ModelReasoningSettings } from './gateway-config.js';

/**
 * Every reasoning effort a request may name, lowest first (PRODUCT.md decision 19): the
 * order `max_reasoning_effort` compares by, and the words the schemas accept.
 */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/** One reasoning effort (spec 2.4's three, plus the 2026 values of decision 19). */
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** The efforts every reasoning model takes; the others only where the model's `reasoning.efforts` lists them. */
export const CORE_EFFORTS: ReadonlySet<ReasoningEffort> = new Set(['low', 'medium', 'high']);

/** Rank of an effort in REASONING_EFFORTS (none 0 … max 6). */
export function effortRank(effort: ReasoningEffort): number {
  return REASONING_EFFORTS.indexOf(effort);
}

/**
 * The model's thinking budget for an effort (docs/reasoning.md). An effort without a budget
 * of its own (a hand-built settings object) takes the nearest: `none` 0, `minimal` low's,
 * `xhigh` and `max` high's.
 */
export function effortBudget(settings: ModelReasoningSettings, effort: ReasoningEffort): number {
  const own = settings.budgets[effort];
  if (own !== undefined) return own;
  if (effort === 'none') return 0;
  return effort === 'minimal' ? settings.budgets.low : settings.budgets.high;
}
