import type { LimitOutcome, LimitRule } from './limit-rule.js';

/**
 * GCRA (generic cell rate algorithm) in its "virtual scheduling" form as a leaky bucket:
 * each bucket holds `limit` units and drains continuously at `limit / periodMs`; a
 * request adds its cost and fits while the level stays at or below `limit`. There are
 * no fixed windows, so nothing doubles at a minute boundary: from idle at most `limit`
 * pass at once, and after that exactly one unit per `periodMs / limit`.
 *
 * The bucket is stored as its level (units, a small number) and the instant it was
 * measured, rather than as a theoretical arrival time in epoch milliseconds: a burst at
 * one instant then adds whole numbers exactly, with no float drift at 1.7e12 ms.
 *
 * `redis-limit-script.ts` holds the same arithmetic in Lua, expression for expression;
 * `test/support/limit-store-contract.ts` checks that both backends agree.
 */

/** Float tolerance in units (one millionth of a request or token). */
export const GCRA_EPSILON = 1e-6;

/** A bucket's stored state: `level` units in it as measured at `stamp` (ms). */
export interface BucketState {
  readonly level: number;
  readonly stamp: number;
}

/** The result of applying a batch of rules at one instant. */
export interface GcraResult {
  /** Every rule fits, so the request passes and the new states must be stored. */
  readonly allowed: boolean;
  readonly outcomes: readonly LimitOutcome[];
  /** The state to store for each rule (same order); `undefined`: leave the bucket as it was. */
  readonly newStates: readonly (BucketState | undefined)[];
}

/**
 * Applies `rules` all-or-nothing at time `nowMs`, given each bucket's stored state
 * (`undefined` for an empty bucket). Pure: the caller stores `newStates`.
 */
export function applyGcra(
  rules: readonly LimitRule[],
  stored: readonly (BucketState | undefined)[],
  nowMs: number,
): GcraResult {
  // Plain loops and preallocated arrays: this runs for every request.
  const count = rules.length;
  const levels = new Array<number>(count);
  const stamps = new Array<number>(count);
  let allowed = true;
  for (let index = 0; index < count; index++) {
    const rule = rules[index];
    if (rule === undefined) continue;
    const state = stored[index];
    const elapsed = state === undefined ? 0 : Math.max(0, nowMs - state.stamp);
    const level = state === undefined ? 0 : Math.max(0, state.level - (elapsed * rule.limit) / rule.periodMs);
    levels[index] = level;
    // A clock behind the stored stamp (another instance's) must not drain the bucket twice.
    stamps[index] = state === undefined ? nowMs : Math.max(state.stamp, nowMs);
    if (!fitsIn(rule, level)) allowed = false;
  }
  const newStates = new Array<BucketState | undefined>(count);
  const outcomes = new Array<LimitOutcome>(count);
  for (let index = 0; index < count; index++) {
    const rule = rules[index];
    if (rule === undefined) continue;
    const level = levels[index] ?? 0;
    const next = level + rule.cost;
    const fits = fitsIn(rule, level);
    const takes = allowed && rule.mode !== 'check';
    const after = takes ? next : level;
    newStates[index] = takes ? { level: next, stamp: stamps[index] ?? nowMs } : undefined;
    outcomes[index] = {
      name: rule.name,
      limit: rule.limit,
      periodMs: rule.periodMs,
      fits,
      remaining: Math.max(0, Math.floor(rule.limit - after + GCRA_EPSILON)),
      resetMs: (after * rule.periodMs) / rule.limit,
      retryAfterMs: fits ? 0 : ((next - rule.limit) * rule.periodMs) / rule.limit,
    };
  }
  return { allowed, outcomes, newStates };
}

function fitsIn(rule: LimitRule, level: number): boolean {
  return rule.mode === 'force' || level + rule.cost <= rule.limit + GCRA_EPSILON;
}
