import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SseParser } from '../../streaming/sse-parser.js';
import { fixtureContext, fixtureNode, randomPieces } from '../../../test/support/adapter-fixtures.js';
import type { CallContext } from '../types.js';
import { nativeResponsesAdapter } from './native-responses.js';

// The Responses API passed through (PRODUCT.md decision 15): the client's body unchanged but
// model and output cap, the node's events relayed whole and split with only the model id
// changed, the usage read for booking.

const STREAM = readFileSync(new URL('../../../test/fixtures/responses-native-stream.sse', import.meta.url), 'utf8');
const node = fixtureNode('openai');

function context(stream: boolean): CallContext {
  return fixtureContext(node, { stream, outputCap: { tokens: 700, contextBound: false } });
}

function relay(pieces: readonly string[]) {
  const mapper = nativeResponsesAdapter.streamMapper(context(true));
  const parser = new SseParser();
  let out = '';
  let ended = false;
  const write = (text: string) => (out += text);
  const onRecord = (record: { event: string | undefined; data: string }) => {
    if (mapper.map(record, () => assert.fail('a native relay emits no chat chunks'), write) === 'end') ended = true;
  };
  for (const piece of pieces) parser.push(piece, onRecord);
  return { out, ended, summary: mapper.summary };
}

test('the request: the client body with the node model and the reserved output cap, to /responses', () => {
  const body = {
    model: 'client-model',
    input: 'hi',
    tools: [{ type: 'web_search' }],
    client_metadata: { a: 1 },
    max_output_tokens: 5000,
  };
  const call = nativeResponsesAdapter.toUpstream({ api: 'responses', body, headers: {} }, context(true));
  assert.equal(call.path, '/responses');
  assert.equal(call.headers.authorization, 'Bearer node-secret');
  assert.deepEqual(JSON.parse(call.body), { ...body, model: 'upstream-model', max_output_tokens: 700, stream: true });
});

test('a JSON reply keeps its bytes but for the model id; its usage and finish reason are read', () => {
  const reply = JSON.stringify({
    id: 'resp_1',
    object: 'response',
    model: 'node-model',
    status: 'incomplete',
    incomplete_details: { reason: 'max_output_tokens' },
    output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hello' }] }],
    usage: {
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 700,
      output_tokens_details: { reasoning_tokens: 100 },
    },
  });
  const mapped = nativeResponsesAdapter.fromUpstream(reply, context(false));
  assert.deepEqual(JSON.parse(mapped.body), { ...JSON.parse(reply), model: 'client-model' });
  assert.equal(mapped.summary.finishReason, 'length');
  assert.deepEqual(mapped.summary.usage, {
    prompt_tokens: 12,
    completion_tokens: 700,
    total_tokens: 712,
    prompt_tokens_details: { cached_tokens: 4 },
    completion_tokens_details: { reasoning_tokens: 100 },
  });
});

test('a stream is relayed event for event, whole or split anywhere, with the client model id and the usage read', () => {
  const whole = relay([STREAM]);
  assert.ok(whole.ended, 'response.completed ends the stream');
  assert.equal(whole.out, STREAM.replaceAll('"model":"node-model"', '"model":"client-model"'));
  assert.equal(whole.summary.finishReason, 'tool_calls');
  assert.deepEqual(whole.summary.usage, {
    prompt_tokens: 420,
    completion_tokens: 57,
    total_tokens: 477,
    prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 12 },
  });
  for (let seed = 1; seed <= 20; seed++) {
    const split = relay(randomPieces(STREAM, seed));
    assert.equal(split.out, whole.out, `seed ${seed}`);
    assert.deepEqual(split.summary, whole.summary, `seed ${seed}`);
  }
});
