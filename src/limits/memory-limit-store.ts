import { applyGcra } from './gcra.js';
import type { LimitRule } from './limit-rule.js';
import { systemClock, type Clock, type LimitStore, type LimitStoreResult } from './limit-store.js';

/** Buckets are swept of empty (fully drained) entries every this many batches. */
const SWEEP_EVERY = 4096;

/** A bucket as kept here: updated in place, request after request. */
interface StoredBucket {
  level: number;
  stamp: number;
  /** When the bucket is empty again and can be forgotten. */
  emptyAt: number;
}

/**
 * The in-process backend: one Map of bucket key → state. Atomic because a batch runs
 * synchronously on the event loop. Drained buckets are forgotten by a periodic sweep,
 * so memory follows the number of recently active keys and addresses.
 */
export class MemoryLimitStore implements LimitStore {
  private readonly buckets = new Map<string, StoredBucket>();
  private batches = 0;

  constructor(private readonly clock: Clock = systemClock) {}

  /** Synchronous form of `apply`, for the Redis fallback path. */
  applyNow(rules: readonly LimitRule[]): LimitStoreResult {
    const now = this.clock();
    if (++this.batches % SWEEP_EVERY === 0) this.sweep(now);
    const stored = new Array<StoredBucket | undefined>(rules.length);
    rules.forEach((rule, index) => (stored[index] = this.buckets.get(rule.key)));
    const result = applyGcra(rules, stored, now);
    for (let index = 0; index < rules.length; index++) {
      const state = result.newStates[index];
      if (state === undefined) continue;
      const rule = rules[index];
      if (rule === undefined) continue;
      const emptyAt = state.stamp + (state.level * rule.periodMs) / rule.limit;
      const bucket = stored[index];
      if (bucket === undefined) {
        this.buckets.set(rule.key, { level: state.level, stamp: state.stamp, emptyAt });
      } else {
        bucket.level = state.level;
        bucket.stamp = state.stamp;
        bucket.emptyAt = emptyAt;
      }
    }
    return { allowed: result.allowed, outcomes: result.outcomes, shared: false };
  }

  apply(rules: readonly LimitRule[]): Promise<LimitStoreResult> {
    return Promise.resolve(this.applyNow(rules));
  }

  /** Buckets currently remembered (tests, metrics). */
  get size(): number {
    return this.buckets.size;
  }

  /** Drops buckets that have drained: a missing bucket means the same. */
  sweep(now: number = this.clock()): void {
    for (const [key, bucket] of this.buckets) if (bucket.emptyAt <= now) this.buckets.delete(key);
  }

  close(): Promise<void> {
    this.buckets.clear();
    return Promise.resolve();
  }
}
