import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestRecord, RequestRun } from '../context/request-context.js';
import { writeRecord } from './write-record.js';

const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
const run: RequestRun = {
  frontDoor: 'messages',
  model: 'alias',
  modelServed: 'served',
  endUser: 'u1',
  stream: true,
  attempts: [{ node: 'a', ms: 5 }],
  affinity: 'hit',
  booked: { usage, estimated: false, sent: true },
  finishReason: 'stop',
  firstByteMs: 12.5,
};
const record = (): RequestRecord => ({ frontDoor: 'chat', stream: false, attempts: [], clientAborted: false });

test('the run is written into the record; what the edge wrote is kept', () => {
  const written = { ...record(), status: 200, keyId: 'k', errorCode: 'x' };
  writeRecord(written, run, 0.25);
  assert.equal(written.frontDoor, 'messages');
  assert.equal(written.model, 'alias');
  assert.equal(written.modelServed, 'served');
  assert.equal(written.endUser, 'u1');
  assert.equal(written.stream, true);
  assert.deepEqual(written.attempts, run.attempts);
  assert.equal(written.affinity, 'hit');
  assert.equal(written.usage, usage);
  assert.equal(written.usageEstimated, undefined, 'a node-reported usage is not marked');
  assert.equal(written.finishReason, 'stop');
  assert.equal(written.firstByteMs, 12.5);
  assert.equal(written.costUsd, 0.25);
  assert.deepEqual([written.status, written.keyId, written.errorCode], [200, 'k', 'x']);
});

test("an estimate is marked; a started stream's failure code is written; no cost until settled", () => {
  const written = record();
  writeRecord(written, { ...run, booked: { usage, estimated: true, sent: false }, streamErrorCode: 'bad_gateway' });
  assert.equal(written.usageEstimated, true);
  assert.equal(written.errorCode, 'bad_gateway');
  assert.equal(written.costUsd, undefined);
});
