import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResponseRow } from '../response-rows.js';
import { MemoryResponseRows } from './memory-response-rows.js';

const row = (id: string, text = ''): ResponseRow => ({
  id,
  accountId: 'acme',
  createdAtMs: Date.now(),
  expiresAtMs: Date.now() + 60_000,
  model: 'm',
  node: null,
  previousResponseId: null,
  depth: 1,
  itemIds: [],
  responseJson: JSON.stringify({ id, text }),
  inputItemsJson: '[]',
});

const NO_QUOTA = { maxCount: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER };

const present = async (rows: MemoryResponseRows, ids: string[]) =>
  (await Promise.all(ids.map(async (id) => ((await rows.get('acme', id)) === undefined ? '' : id)))).filter(Boolean);

test('the memory store keeps the newest responses within its row count', async () => {
  const rows = new MemoryResponseRows({ maxRows: 3 });
  for (const id of ['r1', 'r2', 'r3', 'r4']) await rows.put(row(id), NO_QUOTA);
  assert.deepEqual(await present(rows, ['r1', 'r2', 'r3', 'r4']), ['r2', 'r3', 'r4']);
  await rows.put(row('r2'), NO_QUOTA); // saved again: now the newest
  await rows.put(row('r5'), NO_QUOTA);
  assert.deepEqual(await present(rows, ['r2', 'r3', 'r4', 'r5']), ['r2', 'r4', 'r5']);
});

test('the memory store keeps the newest responses within its size, counting a replaced one once', async () => {
  const size = JSON.stringify({ id: 'rX', text: 'x'.repeat(100) }).length + 2;
  const rows = new MemoryResponseRows({ maxChars: 3 * size });
  for (let round = 0; round < 5; round++) await rows.put(row('r1', 'x'.repeat(100)), NO_QUOTA);
  await rows.put(row('r2', 'x'.repeat(100)), NO_QUOTA);
  await rows.put(row('r3', 'x'.repeat(100)), NO_QUOTA);
  assert.deepEqual(await present(rows, ['r1', 'r2', 'r3']), ['r1', 'r2', 'r3'], 'replacing r1 did not grow the total');
  await rows.put(row('r4', 'x'.repeat(100)), NO_QUOTA);
  assert.deepEqual(await present(rows, ['r1', 'r2', 'r3', 'r4']), ['r2', 'r3', 'r4']);
});
