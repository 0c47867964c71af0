import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestContext, RequestRecord } from '../context/request-context.js';
import { Cancellation } from '../upstream/cancellation.js';
import { pino } from 'pino';
import { requestLineLogger } from './logger.js';
import type { RequestLineSource } from './request-line.js';

function contextWith(record: Partial<RequestRecord>, correlationId = 'corr-1'): RequestContext {
  return {
    requestId: 'req_01TEST',
    correlationId,
    language: 'en',
    startedAt: 0,
    snapshot: undefined as never, // the log line reads no configuration
    cancellation: new Cancellation(),
    abortCause: undefined,
    record: { frontDoor: 'chat', stream: false, attempts: [], clientAborted: false, ...record },
  };
}

/** The request's line as the logger writes it: one line of JSON, its fields after `level` and before `msg`. */
function written(source: RequestLineSource): Record<string, unknown> {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info', base: undefined, timestamp: false },
    { write: (line: string) => lines.push(line) },
  );
  requestLineLogger(logger).write('info', source);
  assert.equal(lines.length, 1);
  const line = lines[0] as string;
  assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'), 'one line, no raw line break inside');
  const { level, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
  assert.deepEqual([level, msg], [30, 'request']);
  return fields;
}

test('a served request: every field, in order, as JSON', () => {
  const context = contextWith({
    status: 200,
    keyPrefix: 'sk-abc',
    accountId: 'acct-1',
    model: 'gpt-4o-mini',
    modelServed: 'qwen3-32b',
    stream: true,
    attempts: [
      { node: 'a', ms: 1.25, status: 503 },
      { node: 'b', ms: 30.5, status: 200 },
    ],
    usage: {
      prompt_tokens: 57,
      completion_tokens: 41,
      total_tokens: 98,
      prompt_tokens_details: { cached_tokens: 7, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 12 },
    },
    costUsd: 0.000123,
    finishReason: 'stop',
    frontDoor: 'chat',
    firstByteMs: 31.75,
  });
  const line = written({ context, method: 'POST', path: '/v1/chat/completions', totalMs: 40.5 });
  assert.deepEqual(Object.entries(line), [
    ['request_id', 'req_01TEST'],
    ['correlation_id', 'corr-1'],
    ['method', 'POST'],
    ['path', '/v1/chat/completions'],
    ['status', 200],
    ['key_prefix', 'sk-abc'],
    ['account', 'acct-1'],
    ['front_door', 'chat'],
    ['model', 'gpt-4o-mini'],
    ['model_served', 'qwen3-32b'],
    ['stream', true],
    ['node', 'b'],
    [
      'attempts',
      [
        { node: 'a', ms: 1.25, status: 503 },
        { node: 'b', ms: 30.5, status: 200 },
      ],
    ],
    ['usage', { prompt_tokens: 57, completion_tokens: 41, total_tokens: 98, cached_tokens: 7, reasoning_tokens: 12 }],
    ['cost_usd', 0.000123],
    ['finish_reason', 'stop'],
    ['first_byte_ms', 31.75],
    ['total_ms', 40.5],
    ['client_aborted', false],
  ]);
});

test('a refused request leaves out what it never had; cost_usd is null until booked', () => {
  const context = contextWith({ status: 401, errorCode: 'invalid_api_key' });
  assert.deepEqual(written({ context, method: 'POST', path: '/v1/chat/completions', totalMs: 0.3 }), {
    request_id: 'req_01TEST',
    correlation_id: 'corr-1',
    method: 'POST',
    path: '/v1/chat/completions',
    status: 401,
    error_code: 'invalid_api_key',
    front_door: 'chat',
    stream: false,
    cost_usd: null,
    total_ms: 0.3,
    client_aborted: false,
  });
});

test('client-controlled text is escaped: the line stays one valid JSON object', () => {
  const hostile = 'm"}\n,"status":1,\\ \u2028 \u0000';
  const context = contextWith({
    model: hostile,
    attempts: [{ node: 'n', ms: 1, error: `bad "reply"\n${hostile}` }],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, estimated: true },
    usageEstimated: true,
    clientAborted: true,
    requestBody: `{"model":${JSON.stringify(hostile)}}`,
  });
  const line = written({ context, method: 'POST', path: '/v1/a"b\\c', totalMs: 1 });
  assert.equal(line.model, hostile);
  assert.equal(line.path, '/v1/a"b\\c');
  assert.equal(line.status, 499, "the status of a client gone, not one the model's text smuggled in");
  assert.deepEqual(line.attempts, [{ node: 'n', ms: 1, error: `bad "reply"\n${hostile}` }]);
  assert.deepEqual(line.usage, {
    prompt_tokens: 1,
    completion_tokens: 2,
    total_tokens: 3,
    cached_tokens: 0,
    reasoning_tokens: 0,
  });
  assert.equal(line.usage_estimated, true);
  assert.equal(line.client_aborted, true);
  assert.equal(line.request_body, `{"model":${JSON.stringify(hostile)}}`);
});

test('a client gone before any answer was sent: status 499; one gone mid-stream keeps the 200 it got', () => {
  const source = { method: 'POST', path: '/v1/responses', totalMs: 2 };
  const gone = written({ context: contextWith({ clientAborted: true }), ...source });
  assert.deepEqual([gone.status, gone.error_code, gone.client_aborted], [499, 'client_aborted', true]);
  const midStream = written({ context: contextWith({ status: 200, stream: true, clientAborted: true }), ...source });
  assert.deepEqual([midStream.status, midStream.error_code, midStream.client_aborted], [200, undefined, true]);
  assert.equal(written({ context: contextWith({}), ...source }).status, undefined, 'no status before an answer');
});

test('a number that is not finite is written as null, as JSON.stringify would', () => {
  const context = contextWith({
    status: Number.NaN,
    attempts: [{ node: 'n', ms: Number.POSITIVE_INFINITY, status: 200 }],
    usage: {
      prompt_tokens: Number.NaN,
      completion_tokens: 1,
      total_tokens: 1,
      prompt_tokens_details: { cached_tokens: Number.NEGATIVE_INFINITY },
    },
    costUsd: Number.NaN,
    firstByteMs: Number.NaN,
  });
  const line = written({ context, method: 'POST', path: '/', totalMs: Number.NaN });
  assert.equal(line.status, null);
  assert.deepEqual(line.attempts, [{ node: 'n', ms: null, status: 200 }]);
  assert.deepEqual(line.usage, {
    prompt_tokens: null,
    completion_tokens: 1,
    total_tokens: 1,
    cached_tokens: null,
    reasoning_tokens: 0,
  });
  assert.equal(line.cost_usd, null);
  assert.equal(line.first_byte_ms, null);
  assert.equal(line.total_ms, null);
});

test('the model served, the end user and the affinity outcome are in the line when set, escaped', () => {
  const context = contextWith({
    status: 200,
    model: 'fast',
    modelServed: 'gpt-4o-mini',
    endUser: 'user "7"\n',
    affinity: 'spill',
  });
  const line = written({ context, method: 'POST', path: '/v1/chat/completions', totalMs: 3 });
  assert.equal(line.model, 'fast');
  assert.equal(line.model_served, 'gpt-4o-mini');
  assert.equal(line.end_user, 'user "7"\n');
  assert.equal(line.affinity, 'spill');
  const bare = written({
    context: contextWith({ status: 200 }),
    method: 'POST',
    path: '/v1/chat/completions',
    totalMs: 3,
  });
  assert.ok(!('model_served' in bare) && !('end_user' in bare) && !('affinity' in bare), 'left out when not set');
});
