import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Usage } from '../../protocol/openai/chat-response-types.js';
import type { CreateResponseRequest } from './create-response-schema.js';
import { randomPieces } from '../../../test/support/adapter-fixtures.js';
import { chunkBatches, chunksOfText } from '../../../test/support/chunk-batches.js';
import { assertResponsesEventOrder, parseResponsesEvents } from '../../../test/support/responses-events.js';
import type { OutputShaping } from './output-items.js';
import { ReasoningEnvelope } from '../reasoning-envelope.js';
import { newRequestId } from '../../http/request-ids.js';
import { newResponseId } from './response-ids.js';
import { ResponseObject } from './response-object.js';
import { ResponseStreamEvents } from './response-stream-events.js';
import { ToolNames } from './tool-names.js';

// Fixture streams of the internal chat form, mapped to the Responses event sequence whole
// and cut at random points: the same events come out however the text is split, in the
// order clients require, with the items and usage the chunks told.

const FIXTURES = new URL('./__fixtures__/', import.meta.url);
const envelope = new ReasoningEnvelope(Buffer.from('test-secret'));

function run(pieces: readonly string[], summaryMode: boolean, responseId: string): string {
  const names = new ToolNames();
  names.add('apply_patch', { kind: 'custom', name: 'apply_patch' });
  const shaping: OutputShaping = { responseId, toolNames: names, summaryMode, includeEncrypted: true, envelope };
  const request = { model: 'qwen3-32b', input: 'hi' } as CreateResponseRequest;
  const mapper = new ResponseStreamEvents(
    new ResponseObject(responseId, 1767225600, 'qwen3-32b', request),
    shaping,
    () => 'node-a',
  );
  let out = '';
  // The pipeline keeps the last batch back for the end (StreamEnd.lastEvents): the last piece's here.
  const batches = chunkBatches(pieces);
  for (const batch of batches.slice(0, -1)) out += mapper.write(batch);
  const usage: Usage = {
    prompt_tokens: 420,
    completion_tokens: 57,
    total_tokens: 477,
    prompt_tokens_details: { cached_tokens: 128 },
    completion_tokens_details: { reasoning_tokens: 12 },
  };
  return out + mapper.end(batches[batches.length - 1] ?? [], usage).events;
}

for (const file of readdirSync(FIXTURES).filter((name) => name.endsWith('.sse'))) {
  const text = readFileSync(new URL(file, FIXTURES), 'utf8');
  for (const summaryMode of [true, false]) {
    test(`${file} (${summaryMode ? 'summary' : 'raw reasoning'}): the same ordered events whole and split`, () => {
      const id = newResponseId(newRequestId());
      const whole = run([text, ''], summaryMode, id);
      assertResponsesEventOrder(parseResponsesEvents(whole));
      for (let seed = 1; seed <= 25; seed++) {
        // Envelopes are sealed with a fresh nonce each: compared as sealed, not byte for byte.
        const comparable = (events: string) =>
          events.replace(/"completed_at":\d+/g, '').replace(/"swy2\.[\w-]+"/g, '"swy2.sealed"');
        assert.equal(comparable(run(randomPieces(text, seed), summaryMode, id)), comparable(whole), `seed ${seed}`);
      }
    });
  }
}

test('reasoning, text and interleaved parallel calls become their items, with usage and a custom call in its own shape', () => {
  const text = readFileSync(new URL('reasoning-text-parallel-calls.sse', FIXTURES), 'utf8');
  const events = parseResponsesEvents(run([text, ''], true, newResponseId(newRequestId())));
  const response = assertResponsesEventOrder(events);
  assert.equal(response.status, 'completed');
  const output = response.output as Record<string, unknown>[];
  assert.deepEqual(
    output.map((item) => item.type),
    ['reasoning', 'message', 'function_call', 'custom_tool_call'],
  );
  assert.deepEqual(output[0]?.summary, [{ type: 'summary_text', text: 'Checking the forecast tool.' }]);
  const opened = envelope.open(output[0]?.encrypted_content as string);
  assert.deepEqual(opened, { node: 'node-a', payload: { reasoning_content: 'Checking the forecast tool.' } });
  assert.deepEqual((output[1]?.content as unknown[])[0], {
    type: 'output_text',
    text: 'Looking it up.',
    annotations: [],
    logprobs: [],
  });
  assert.equal(output[2]?.call_id, 'call_Xw81');
  assert.equal(output[2]?.arguments, '{"city":"Oslo"}');
  assert.equal(output[3]?.input, '*** Begin Patch\n');
  const argumentDeltas = events
    .filter((event) => event.name === 'response.function_call_arguments.delta')
    .map((event) => event.data.delta)
    .join('');
  assert.equal(argumentDeltas, '{"city":"Oslo"}');
  assert.deepEqual(response.usage, {
    input_tokens: 420,
    input_tokens_details: { cached_tokens: 128, cache_write_tokens: 0 },
    output_tokens: 57,
    output_tokens_details: { reasoning_tokens: 12 },
    total_tokens: 477,
  });
  const textDeltas = events.filter((event) => event.name === 'response.output_text.delta');
  assert.equal(textDeltas.map((event) => event.data.delta).join(''), 'Looking it up.');
});

test('a reply cut at the output cap ends with response.incomplete, reason max_output_tokens', () => {
  const text = readFileSync(new URL('cut-at-length.sse', FIXTURES), 'utf8');
  const response = assertResponsesEventOrder(
    parseResponsesEvents(run([text, ''], false, newResponseId(newRequestId()))),
  );
  assert.equal(response.status, 'incomplete');
  assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
});

test('Anthropic thinking blocks travel in the envelope for the node that made them', () => {
  const text = readFileSync(new URL('anthropic-thinking.sse', FIXTURES), 'utf8');
  const response = assertResponsesEventOrder(
    parseResponsesEvents(run([text, ''], false, newResponseId(newRequestId()))),
  );
  const reasoning = (response.output as Record<string, unknown>[])[0] as Record<string, unknown>;
  assert.deepEqual(reasoning.content, [{ type: 'reasoning_text', text: 'Plan.' }]);
  assert.deepEqual(envelope.open(reasoning.encrypted_content as string)?.payload, {
    thinking_blocks: [{ type: 'thinking', thinking: '', signature: 'sig-A' }],
  });
  assert.equal(
    new ReasoningEnvelope(Buffer.from('another-secret')).open(reasoning.encrypted_content as string),
    undefined,
    'another key does not open it',
  );
});

test('a failure mid-stream is an error event in both forms, then response.failed with the output so far', () => {
  const id = newResponseId(newRequestId());
  const shaping: OutputShaping = {
    responseId: id,
    toolNames: new ToolNames(),
    summaryMode: false,
    includeEncrypted: false,
    envelope,
  };
  const mapper = new ResponseStreamEvents(
    new ResponseObject(id, 1, 'm', { model: 'm', input: 'x' } as CreateResponseRequest),
    shaping,
    () => undefined,
  );
  let out = mapper.write(
    chunksOfText('data: {"choices":[{"index":0,"delta":{"content":"Hal"},"finish_reason":null}]}\n\n'),
  );
  out += mapper.fail([], { type: 'server_error', code: 'bad_gateway', message: 'The node stopped.' }, undefined).events;
  const events = parseResponsesEvents(out);
  const error = events[events.length - 2] as { name: string; data: Record<string, unknown> };
  assert.equal(error.name, 'error');
  assert.equal(error.data.code, 'bad_gateway');
  assert.deepEqual(error.data.error, {
    type: 'server_error',
    code: 'bad_gateway',
    message: 'The node stopped.',
    param: null,
  });
  const response = assertResponsesEventOrder(events);
  assert.equal(response.status, 'failed');
  assert.deepEqual((response.output as Record<string, unknown>[])[0]?.content, [
    { type: 'output_text', text: 'Hal', annotations: [], logprobs: [] },
  ]);
});
