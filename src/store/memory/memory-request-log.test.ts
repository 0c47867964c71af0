import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryRequestLog } from './memory-request-log.js';
import type { RequestLogRow } from '../request-log-rows.js';

function row(id: string, timeMs: number): RequestLogRow {
  return {
    id,
    correlationId: id,
    timeMs,
    door: 'chat',
    method: 'POST',
    path: '/v1/chat/completions',
    status: 200,
    errorCode: null,
    keyId: 'k',
    keyPrefix: null,
    accountId: null,
    endUser: null,
    model: 'm',
    modelServed: 'm',
    node: 'n',
    affinity: null,
    stream: false,
    attempts: [],
    usage: null,
    costUsd: null,
    firstByteMs: null,
    totalMs: 1,
    traceId: null,
    requestBody: null,
    replyBody: null,
  };
}

const everything = { limit: 1_000_000 };

test('the memory request log keeps the newest rows, the oldest inserted going first', async () => {
  const log = new MemoryRequestLog(3);
  for (let index = 0; index < 10_000; index++) await log.insert([row(`r${index}`, index)], []);
  const kept = await log.list(everything);
  assert.deepEqual(
    kept.map((each) => each.id),
    ['r9999', 'r9998', 'r9997'],
  );
  assert.equal(await log.get('r9996'), undefined);
});

test('rows purged, then more inserted: the count stays bounded and the newest stay', async () => {
  const log = new MemoryRequestLog(5);
  for (let index = 0; index < 5; index++) await log.insert([row(`a${index}`, index)], []);
  assert.equal(await log.purge({ maxRows: 2, beforeMs: 0, bodiesBeforeMs: 0 }), 3);
  for (let index = 0; index < 20_000; index++) await log.insert([row(`b${index}`, 100 + index)], []);
  const kept = await log.list(everything);
  assert.deepEqual(
    kept.map((each) => each.id),
    ['b19999', 'b19998', 'b19997', 'b19996', 'b19995'],
  );
  // Purging most rows many times over does not let the insertion order grow without bound.
  for (let round = 0; round < 50; round++) {
    for (let index = 0; index < 3_000; index++) await log.insert([row(`c${round}-${index}`, 50_000 + round)], []);
    await log.purge({ maxRows: 1, beforeMs: 0, bodiesBeforeMs: 0 });
  }
  const order = (log as unknown as { insertionOrder: unknown[]; oldest: number }).insertionOrder;
  assert.ok(order.length < 5_000, `insertion order of ${order.length} ids`);
});
