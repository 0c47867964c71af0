import type { LimitOutcome, LimitRule } from './limit-rule.js';

/** What a backend answers for one batch of rules. */
export interface LimitStoreResult {
  /** All rules fitted and were applied together; otherwise none was. */
  readonly allowed: boolean;
  readonly outcomes: readonly LimitOutcome[];
  /** Redis decided (across instances), not this process alone. */
  readonly shared: boolean;
}

/**
 * Where the GCRA buckets live. `apply` checks and updates every rule of a batch as one
 * atomic step: either all `consume`/`force` rules take their cost, or none does.
 */
export interface LimitStore {
  apply(rules: readonly LimitRule[]): Promise<LimitStoreResult>;
  close(): Promise<void>;
}

/** A clock in milliseconds (Unix epoch); injected in tests. */
export type Clock = () => number;

/** The wall clock with sub-millisecond resolution. */
export const systemClock: Clock = () => performance.timeOrigin + performance.now();
