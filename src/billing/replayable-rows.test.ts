import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UsageRow } from '../store/records.js';
import { replayableRows } from './replayable-rows.js';
import type { JournalRow } from './usage-journal.js';

function row(requestId: string, fields: Partial<UsageRow> = {}): UsageRow {
  return {
    requestId,
    correlationId: requestId,
    keyId: 'key_a',
    accountId: 'acct',
    model: 'm',
    node: 'n',
    attempts: 1,
    promptTokens: 10,
    completionTokens: 5,
    reasoningTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    costNano: 100,
    estimated: false,
    status: 200,
    errorCode: null,
    latencyMs: 1,
    firstByteMs: 1,
    stream: true,
    finishReason: 'stop',
    frontDoor: 'chat',
    endUser: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

const progress = (requestId: string, latencyMs: number, completionTokens: number): JournalRow => ({
  ...row(requestId, { latencyMs, completionTokens, estimated: true, finishReason: null }),
  inFlight: true,
});

test('a final row wins over the progress records of its request, whichever comes first', () => {
  const final = row('a', { completionTokens: 40, latencyMs: 900 });
  for (const lines of [
    [progress('a', 100, 3), progress('a', 600, 20), final],
    [final, progress('a', 2000, 99)],
  ]) {
    assert.deepEqual(replayableRows(lines), [final]);
  }
});

test('a request with progress records only is booked once, from the latest, as estimated and cut by the crash', () => {
  const rows = replayableRows([progress('b', 600, 20), row('c'), progress('b', 1200, 35), progress('b', 100, 2)]);
  assert.equal(rows.length, 2);
  const booked = rows.find((each) => each.requestId === 'b');
  assert.deepEqual(booked, {
    ...row('b', { latencyMs: 1200, completionTokens: 35, finishReason: null }),
    estimated: true,
    errorCode: 'gateway_crashed',
  });
  assert.equal('inFlight' in (booked as object), false, 'the journal marker is not booked');
});

test('a request id booked twice in the journal is replayed once', () => {
  assert.equal(replayableRows([row('d'), row('d', { costNano: 999 })]).length, 1);
});
