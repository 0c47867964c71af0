import assert from 'node:assert/strict';
import { test } from 'node:test';
import { limitStoreContract, manualClock } from '../../test/support/limit-store-contract.js';
import { MemoryLimitStore } from './memory-limit-store.js';

limitStoreContract('in-process', async (clock) => new MemoryLimitStore(clock.read));

test('drained buckets are swept from memory', async () => {
  const clock = manualClock();
  const store = new MemoryLimitStore(clock.read);
  await store.apply([{ name: 'a', key: 'a', limit: 10, periodMs: 1_000, cost: 1, mode: 'consume' }]);
  await store.apply([{ name: 'b', key: 'b', limit: 1, periodMs: 60_000, cost: 1, mode: 'consume' }]);
  await store.apply([{ name: 'c', key: 'c', limit: 1, periodMs: 60_000, cost: 1, mode: 'check' }]);
  assert.equal(store.size, 2, 'a check stores nothing');
  clock.now += 100;
  store.sweep();
  assert.equal(store.size, 1, 'a (drained after 100 ms) is gone, b is not');
  clock.now += 60_000;
  store.sweep();
  assert.equal(store.size, 0);
});
