import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BodyBudget } from './body-budget.js';

const limits = () => ({
  maxBodyBytesInFlight: 1_000_000_000,
  maxBodyBytesInFlightPerKey: 100,
  maxBodyBytesInFlightPerIp: 100,
});

test('a share given back to zero can be taken whole again, and one over its cap is refused', () => {
  const budget = new BodyBudget(limits);
  const holder = { keyId: 'k', ip: '10.0.0.1' };
  for (let round = 0; round < 5; round++) {
    budget.take(holder, 100);
    assert.throws(() => budget.take(holder, 1), /rate|limit/i);
    budget.release(holder, 100);
  }
  budget.take(holder, 60);
  budget.take(holder, 40);
  budget.release(holder, 100);
});

test('holders back at zero do not pile up: the maps are swept', () => {
  const budget = new BodyBudget(limits);
  for (let index = 0; index < 50_000; index++) {
    const holder = { keyId: `k${index}`, ip: `10.0.${index >> 8}.${index & 255}` };
    budget.take(holder, 10);
    budget.release(holder, 10);
  }
  const shares = budget as unknown as { perKey: Map<string, number>; perIp: Map<string, number> };
  assert.ok(shares.perKey.size <= 4_096 + 1_024, `${shares.perKey.size} keys kept`);
  assert.ok(shares.perIp.size <= 4_096 + 1_024, `${shares.perIp.size} addresses kept`);
  // One still holding is never swept.
  const holding = { keyId: 'held', ip: '10.9.9.9' };
  budget.take(holding, 100);
  for (let index = 0; index < 20_000; index++) {
    const holder = { keyId: `x${index}`, ip: `10.1.${index >> 8}.${index & 255}` };
    budget.take(holder, 10);
    budget.release(holder, 10);
  }
  assert.throws(() => budget.take(holding, 1), /rate|limit/i);
});
