import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelConfig, ModelPricing } from '../config/gateway-config.js';
import { reservedPrices, reservedToolNano, settledPrices, toolCallsNano } from './feature-prices.js';
import { nanoPrices } from './prices.js';
import { modelConfig } from '../../test/support/model-config.js';

// Issue 28 finding 10: the reservation covers every priced feature a request may use;
// settlement prices what the node reported, each price the dearest of the tables that apply.

const table = (input: number, output: number): ModelPricing => ({
  input,
  output,
  cachedInput: undefined,
  cacheWrite: undefined,
  cacheWrite1h: undefined,
  reasoning: undefined,
});

const MODEL: ModelConfig = modelConfig({
  pricing: table(1, 2),
  pricedFeatures: {
    serverTools: new Map([
      ['web_search', { usdPerCall: 0.01, maxCalls: 3 }],
      ['code_interpreter', { usdPerCall: 0.03, maxCalls: 2 }],
    ]),
    serviceTiers: new Map([
      ['priority', table(2, 4)],
      ['flex', table(0.5, 1)],
    ]),
    betas: new Map([['context-1m-2025-08-07', { pricing: table(3, 3), minPromptTokens: 200_000 }]]),
  },
});
const BASE = nanoPrices(table(1, 2));
const USE = { toolCalls: [{ tools: ['web_search', 'code_interpreter'], calls: 4 }], betas: ['context-1m-2025-08-07'] };

test('the reservation: the dearest of the model, every listed tier and the forwarded betas; shared calls at the dearest tool', () => {
  const prices = reservedPrices(MODEL, BASE, USE);
  assert.deepEqual([prices.input, prices.output], [3_000_000_000, 4_000_000_000]);
  assert.equal(reservedToolNano(MODEL, USE), 4 * 30_000_000);
});

test('settlement: the reported tier when listed, a beta only past its prompt threshold; unlisted tiers at the model prices', () => {
  const small = settledPrices(MODEL, BASE, USE, { serviceTier: 'priority' }, 1000);
  assert.deepEqual([small.prices.input, small.prices.output, small.tier, small.betas], [2e9, 4e9, 'priority', []]);
  const long = settledPrices(MODEL, BASE, USE, { serviceTier: 'flex' }, 250_000);
  assert.deepEqual(
    [long.prices.input, long.prices.output, long.tier, long.betas],
    [3e9, 3e9, 'flex', ['context-1m-2025-08-07']],
  );
  const unknown = settledPrices(MODEL, BASE, USE, { serviceTier: 'scale' }, 1000);
  assert.deepEqual([unknown.prices, unknown.tier], [BASE, undefined]);
});

test('reported calls at their prices; a tool the model does not price is free', () => {
  assert.equal(
    toolCallsNano(MODEL, { web_search: 2, code_interpreter: 1, file_search: 9 }),
    2 * 10_000_000 + 30_000_000,
  );
  assert.equal(toolCallsNano(MODEL, undefined), 0);
});
