import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UsageRow } from '../records.js';
import { MemoryStore } from './memory-store.js';
import { MEMORY_STORE_KEPT_USAGE_ROWS, RecentUsageRows } from './recent-usage-rows.js';

const NANO = 1_000_000_000;

function usageRow(index: number, overrides: Partial<UsageRow> = {}): UsageRow {
  return {
    requestId: `req_${index}`,
    correlationId: `req_${index}`,
    keyId: 'key_a',
    accountId: 'acme',
    model: 'm',
    node: 'n',
    attempts: 1,
    promptTokens: 10,
    completionTokens: 5,
    reasoningTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    costNano: 1_000,
    estimated: false,
    status: 200,
    errorCode: null,
    latencyMs: 3,
    firstByteMs: 1,
    stream: false,
    finishReason: 'stop',
    frontDoor: 'chat',
    endUser: null,
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString(),
    ...overrides,
  };
}

async function storeWithKey(keptUsageRows?: number): Promise<MemoryStore> {
  const store = new MemoryStore({ keptUsageRows });
  await store.insertAccountIfAbsent({ id: 'acme', balanceNano: 100 * NANO }, 'test');
  await store.insertKeyIfAbsent({ id: 'key_a', hash: 'a'.repeat(64), prefix: 'sk-a', accountId: 'acme' });
  return store;
}

const rows = (from: number, to: number, overrides: Partial<UsageRow> = {}) =>
  Array.from({ length: to - from }, (_, offset) => usageRow(from + offset, overrides));

test('the memory store keeps 10,000 usage rows by default', () => {
  assert.equal(MEMORY_STORE_KEPT_USAGE_ROWS, 10_000);
  assert.equal(new RecentUsageRows().capacity, 10_000);
});

test('usage rows beyond the bound are dropped oldest first; balance and spend stay exact', async () => {
  const store = await storeWithKey(5);
  await store.recordUsage(rows(0, 3));
  const settled = await store.recordUsage(rows(3, 8));

  const report = await store.queryUsage({ limit: 100 });
  assert.deepEqual(
    report.rows.map((row) => row.requestId),
    ['req_7', 'req_6', 'req_5', 'req_4', 'req_3'],
    'the newest five, newest first',
  );
  assert.equal(report.totals.requests, 5, 'totals cover the kept rows only');
  assert.equal(report.totals.costNano, 5_000);
  assert.equal(report.totals.promptTokens, 50);

  // Eight rows were booked: the counters hold all eight, not the five kept.
  assert.equal((await store.getAccount('acme'))?.balanceNano, 100 * NANO - 8_000);
  assert.equal((await store.getKey('key_a'))?.spentNano, 8_000);
  assert.equal(settled.accounts.get('acme'), 100 * NANO - 8_000);
  assert.equal(settled.keys.get('key_a'), 8_000);
  assert.equal((await store.getKey('key_a'))?.lastUsedAt, usageRow(7).createdAt);
});

test('a request id within the kept window is booked once; the window is the kept rows', async () => {
  const store = await storeWithKey(3);
  await store.recordUsage(rows(0, 3));
  await store.recordUsage([usageRow(1), usageRow(2), usageRow(1, { costNano: 999_999 })]);
  assert.equal(
    (await store.getKey('key_a'))?.spentNano,
    3_000,
    'duplicates in the window are skipped, within a batch too',
  );
  assert.deepEqual(
    (await store.queryUsage({ limit: 10 })).rows.map((row) => row.requestId),
    ['req_2', 'req_1', 'req_0'],
  );

  await store.recordUsage([usageRow(3)]);
  await store.recordUsage([usageRow(2), usageRow(3)]);
  assert.equal((await store.getKey('key_a'))?.spentNano, 4_000, 'req_2 and req_3 are still in the window');
  assert.deepEqual(
    (await store.queryUsage({ limit: 10 })).rows.map((row) => row.requestId),
    ['req_3', 'req_2', 'req_1'],
  );

  // req_0 left the window: the memory store has no journal to replay, so it cannot come back
  // in practice; if it did, it would be booked again.
  await store.recordUsage([usageRow(0)]);
  assert.equal((await store.getKey('key_a'))?.spentNano, 5_000);
  assert.deepEqual(
    (await store.queryUsage({ limit: 10 })).rows.map((row) => row.requestId),
    ['req_0', 'req_3', 'req_2'],
  );
});

test('usage queries filter the kept rows and count totals past the row limit', async () => {
  const store = await storeWithKey(6);
  await store.insertKeyIfAbsent({ id: 'key_b', hash: 'b'.repeat(64), prefix: 'sk-b', accountId: 'acme' });
  await store.recordUsage([...rows(0, 4), ...rows(4, 8, { keyId: 'key_b', model: 'other' })]);

  const byKey = await store.queryUsage({ keyId: 'key_a', limit: 1 });
  assert.deepEqual(
    byKey.rows.map((row) => row.requestId),
    ['req_3'],
  );
  assert.equal(byKey.totals.requests, 2, 'req_0 and req_1 were dropped: req_2 and req_3 are left');

  const byModel = await store.queryUsage({ model: 'other', limit: 10 });
  assert.deepEqual(
    byModel.rows.map((row) => row.requestId),
    ['req_7', 'req_6', 'req_5', 'req_4'],
  );

  const window = await store.queryUsage({ from: usageRow(3).createdAt, to: usageRow(6).createdAt, limit: 10 });
  assert.deepEqual(
    window.rows.map((row) => row.requestId),
    ['req_5', 'req_4', 'req_3'],
    'from inclusive, to exclusive',
  );
  assert.equal((await store.queryUsage({ limit: 0 })).totals.requests, 6);
});

test('the kept rows stay bounded over many batches', async () => {
  const store = await storeWithKey(1_000);
  for (let batch = 0; batch < 50; batch++) await store.recordUsage(rows(batch * 1_000, (batch + 1) * 1_000));
  const report = await store.queryUsage({ limit: 1 });
  assert.equal(report.totals.requests, 1_000);
  assert.equal(report.rows[0]?.requestId, 'req_49999');
  assert.equal((await store.getKey('key_a'))?.spentNano, 50_000 * 1_000);
});

test('RecentUsageRows refuses a capacity below one', () => {
  assert.throws(() => new RecentUsageRows(0), RangeError);
  assert.throws(() => new RecentUsageRows(1.5), RangeError);
});
