import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyGcra, type BucketState } from './gcra.js';
import type { LimitRule } from './limit-rule.js';

const NOW = 1_700_000_000_000;
const rpm = (limit: number, extra: Partial<LimitRule> = {}): LimitRule => ({
  name: 'r',
  key: 'r',
  limit,
  periodMs: 60_000,
  cost: 1,
  mode: 'consume',
  ...extra,
});

/** Runs `count` single-rule batches at the given instants, carrying state like a store. */
function run(rule: LimitRule, instants: readonly number[]) {
  let state: BucketState | undefined;
  return instants.map((now) => {
    const result = applyGcra([rule], [state], now);
    state = result.newStates[0] ?? state;
    return result;
  });
}

test('an empty bucket lets `limit` through at once, then one per period/limit', () => {
  const results = run(
    rpm(600),
    Array.from({ length: 601 }, () => NOW),
  );
  assert.equal(results.filter((result) => result.allowed).length, 600);
  assert.equal(results[599]!.outcomes[0]!.remaining, 0);
  assert.equal(results[600]!.outcomes[0]!.retryAfterMs, 100, '600 RPM drains one request per 100 ms');
});

test('remaining, reset and retry-after arithmetic', () => {
  const rule = rpm(4);
  const [first, second] = run(rule, [NOW, NOW + 3_000]);
  assert.deepEqual(first!.outcomes[0], {
    name: 'r',
    limit: 4,
    periodMs: 60_000,
    fits: true,
    remaining: 3,
    resetMs: 15_000,
    retryAfterMs: 0,
  });
  // 3 s later the first request has drained by 0.2: level 1.8 → remaining floor(4 - 1.8) = 2, full again in 27 s.
  assert.equal(second!.outcomes[0]!.remaining, 2);
  assert.ok(Math.abs(second!.outcomes[0]!.resetMs - 27_000) < 1e-6);
});

test('a refusal stores nothing and reports the wait until one request fits', () => {
  const state: BucketState = { level: 4, stamp: NOW };
  const result = applyGcra([rpm(4)], [state], NOW + 5_000);
  assert.equal(result.allowed, false);
  assert.deepEqual(result.newStates, [undefined]);
  assert.ok(Math.abs(result.outcomes[0]!.retryAfterMs - 10_000) < 1e-6, 'level 4 - 1/3 + 1 = 4.67 over: 0.67 × 15 s');
  assert.equal(result.outcomes[0]!.remaining, 0);
});

test('check mode never stores; force mode stores past the limit', () => {
  const check = applyGcra([rpm(10, { mode: 'check', cost: 1 })], [undefined], NOW);
  assert.deepEqual(check.newStates, [undefined]);
  assert.equal(check.outcomes[0]!.remaining, 10);
  const force = applyGcra([rpm(10, { mode: 'force', cost: 25 })], [undefined], NOW);
  assert.equal(force.allowed, true);
  assert.deepEqual(force.newStates, [{ level: 25, stamp: NOW }]);
  assert.equal(force.outcomes[0]!.resetMs, 150_000);
});

test('a clock behind the stored stamp neither drains the bucket nor moves its stamp back', () => {
  const state: BucketState = { level: 2, stamp: NOW };
  const result = applyGcra([rpm(3)], [state], NOW - 30_000);
  assert.deepEqual(result.newStates, [{ level: 3, stamp: NOW }]);
});

test('all or nothing: one refusing rule keeps every other bucket as it was', () => {
  const result = applyGcra([rpm(5, { key: 'a' }), rpm(1, { key: 'b' })], [undefined, { level: 1, stamp: NOW }], NOW);
  assert.equal(result.allowed, false);
  assert.deepEqual(result.newStates, [undefined, undefined]);
  assert.equal(result.outcomes[0]!.fits, true);
  assert.equal(result.outcomes[0]!.remaining, 5);
});
