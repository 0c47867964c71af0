import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costOf, nanoPrices, tokensOf, worstCaseCost } from './prices.js';

// PRODUCT.md decision 21: cache reads at cached_input, cache writes at cache_write (5 minutes)
// or cache_write_1h, the rest of the prompt at input, never a token twice.

test('cache writes default to 1.25 × and 2 × the input price; configured prices win', () => {
  const defaults = nanoPrices({
    input: 3,
    output: 15,
    cachedInput: 0.3,
    cacheWrite: undefined,
    cacheWrite1h: undefined,
    reasoning: undefined,
  });
  assert.deepEqual([defaults.cacheWrite, defaults.cacheWrite1h], [3_750_000_000, 6_000_000_000]);
  const set = nanoPrices({
    input: 3,
    output: 15,
    cachedInput: undefined,
    cacheWrite: 4,
    cacheWrite1h: 5.5,
    reasoning: undefined,
  });
  assert.deepEqual([set.cachedInput, set.cacheWrite, set.cacheWrite1h], [3_000_000_000, 4_000_000_000, 5_500_000_000]);
});

test('a prompt with cache reads and 5-minute and 1-hour writes costs each part once at its own price', () => {
  const prices = nanoPrices({
    input: 3,
    output: 15,
    cachedInput: 0.3,
    cacheWrite: undefined,
    cacheWrite1h: undefined,
    reasoning: undefined,
  });
  const usage = {
    prompt_tokens: 3600,
    completion_tokens: 40,
    total_tokens: 3640,
    prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 1500, cache_write_1h_tokens: 1000 },
  };
  const tokens = tokensOf(usage);
  assert.deepEqual(tokens, {
    prompt: 3600,
    cached: 2000,
    cacheWrite: 1500,
    cacheWrite1h: 1000,
    completion: 40,
    reasoning: 0,
  });
  // 100 × $3 + 2000 × $0.30 + 500 × $3.75 + 1000 × $6 + 40 × $15, per million tokens.
  assert.equal(costOf(tokens, prices), (100 * 3 + 2000 * 0.3 + 500 * 3.75 + 1000 * 6 + 40 * 15) * 1000);
  // Counts a node cannot mean are clamped into the prompt: never more than the prompt, never negative.
  const odd = tokensOf({
    prompt_tokens: 100,
    completion_tokens: 0,
    total_tokens: 100,
    prompt_tokens_details: { cached_tokens: 80, cache_write_tokens: 50, cache_write_1h_tokens: 'x' },
  });
  assert.deepEqual([odd.cached, odd.cacheWrite, odd.cacheWrite1h], [80, 20, 0]);
});

test('the worst case prices the prompt at the dearest cache-write price only when the request marks breakpoints', () => {
  const prices = nanoPrices({
    input: 3,
    output: 15,
    cachedInput: undefined,
    cacheWrite: undefined,
    cacheWrite1h: undefined,
    reasoning: undefined,
  });
  assert.equal(worstCaseCost(1000, 100, prices), 3000 * 1000 + 1500 * 1000);
  assert.equal(worstCaseCost(1000, 100, prices, true), 6000 * 1000 + 1500 * 1000);
});
