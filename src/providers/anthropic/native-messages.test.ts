import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser } from '../../streaming/sse-parser.js';
import { fixtureContext, fixtureNode, randomPieces } from '../../../test/support/adapter-fixtures.js';
import { anthropicNativeMessages } from './native-messages.js';

const node = fixtureNode('anthropic');

const STREAM = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"upstream-model","content":[],"stop_reason":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":3000,"cache_creation":{"ephemeral_5m_input_tokens":50,"ephemeral_1h_input_tokens":150},"output_tokens":1}}}\n\n',
  'event: ping\ndata: {"type":"ping"}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm."}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqNative=="}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":42,"output_tokens_details":{"thinking_tokens":12}}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join('');

function relay(pieces: readonly string[]): { text: string; summary: unknown } {
  const mapper = anthropicNativeMessages.streamMapper(fixtureContext(node, { stream: true }));
  const parser = new SseParser();
  let text = '';
  const onRecord = (record: { event: string | undefined; data: string }) => {
    mapper.map(
      record,
      () => assert.fail('a native relay emits no chat chunks'),
      (framed) => (text += framed),
    );
  };
  for (const piece of pieces) parser.push(piece, onRecord);
  parser.end(onRecord);
  return { text, summary: mapper.summary };
}

test('the native relay sends the node events as they are, the client model in message_start; usage with cache reads and writes apart', () => {
  const { text, summary } = relay([STREAM]);
  assert.equal(text, STREAM.replace('"model":"upstream-model"', '"model":"client-model"'));
  assert.deepEqual((summary as { usage: unknown }).usage, {
    prompt_tokens: 3210,
    completion_tokens: 42,
    total_tokens: 3252,
    prompt_tokens_details: { cached_tokens: 3000, cache_write_tokens: 200, cache_write_1h_tokens: 150 },
    completion_tokens_details: { reasoning_tokens: 12 },
  });
  assert.equal((summary as { finishReason: string }).finishReason, 'stop');
  for (let seed = 1; seed <= 20; seed++) assert.deepEqual(relay(randomPieces(STREAM, seed, 20)), { text, summary });
});

test('the native request: the client body but model, max_tokens and gateway-minted thinking; anthropic-* headers; the node key', () => {
  const body = {
    model: 'client-model',
    max_tokens: 999_999,
    system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    messages: [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'native', signature: 'EqNative==' },
          { type: 'thinking', thinking: 'foreign', signature: 'swy1.abc.def.ghi' },
          { type: 'redacted_thinking', data: 'swy1.x.y.z' },
          { type: 'text', text: 'a' },
        ],
      },
      { role: 'user', content: 'again' },
    ],
    context_management: { edits: [] },
    stream: true,
  };
  const call = anthropicNativeMessages.toUpstream(
    { api: 'messages', body, headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'a,b' } },
    fixtureContext(node, { stream: true }, { model: 'client-model', messages: [], max_tokens: 2000 }),
  );
  assert.equal(call.path, '/messages');
  assert.equal(call.headers['x-api-key'], 'node-secret');
  assert.equal(call.headers['anthropic-beta'], 'a,b');
  const sent = JSON.parse(call.body) as Record<string, unknown>;
  assert.deepEqual(sent, {
    ...body,
    model: 'upstream-model',
    max_tokens: 2000,
    messages: [
      body.messages[0],
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'native', signature: 'EqNative==' },
          { type: 'text', text: 'a' },
        ],
      },
      body.messages[2],
    ],
  });
});
