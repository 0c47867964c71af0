import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomPieces } from '../../../test/support/adapter-fixtures.js';
import { chunkBatches, chunksOfText } from '../../../test/support/chunk-batches.js';
import { MessagesStreamTranslator } from './messages-stream-translator.js';
import { ReasoningEnvelope } from '../reasoning-envelope.js';
import { ThinkingSignatures } from './thinking-signatures.js';

const envelopes = new ThinkingSignatures(new ReasoningEnvelope(Buffer.from('test-secret')));
const ID = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'claude-via-gw' };

function chunk(
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  return `data: ${JSON.stringify({ ...ID, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
}
const usageChunk = (usage: Record<string, unknown>) => `data: ${JSON.stringify({ ...ID, choices: [], usage })}\n\n`;

function translator(node = 'node-a'): MessagesStreamTranslator {
  return new MessagesStreamTranslator({
    requestId: 'REQ1',
    model: 'claude-via-gw',
    inputTokensEstimate: 40,
    node: () => node,
    envelopes,
  });
}

/** Runs a whole internal stream through a translator, fed in the batches `pieces` of its text make; returns the Anthropic events parsed. */
function run(
  pieces: readonly string[],
  usage?: Record<string, unknown>,
): Array<{ event: string; data: Record<string, unknown> }> {
  const stream = translator();
  let out = '';
  for (const batch of chunkBatches(pieces)) out += stream.write(batch);
  out += stream.end([], usage as never);
  return parseEvents(out);
}

function parseEvents(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  assert.ok(text.endsWith('\n\n'));
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((raw) => {
      const [eventLine, dataLine, ...rest] = raw.split('\n');
      assert.equal(rest.length, 0, raw);
      assert.match(eventLine ?? '', /^event: /);
      const data = JSON.parse((dataLine ?? '').slice('data: '.length)) as Record<string, unknown>;
      const event = (eventLine ?? '').slice('event: '.length);
      assert.equal(data.type, event, 'every event names its type twice (rule A21)');
      return { event, data };
    });
}

/**
 * The events with each sealed signature replaced by what it opens to: envelopes are
 * encrypted with a fresh nonce each, so two seals of the same content differ.
 */
function opened(events: Array<{ event: string; data: Record<string, unknown> }>): typeof events {
  return events.map((entry) => {
    const delta = entry.data.delta as { type?: unknown; signature?: unknown } | undefined;
    if (delta?.type !== 'signature_delta') return entry;
    return { ...entry, data: { ...entry.data, delta: { ...delta, signature: envelopes.open(delta.signature) } } };
  });
}

/** Checks the grammar of inbound-protocols 1.8 and rebuilds the message as the SDK's accumulator would. */
function accumulate(events: Array<{ event: string; data: Record<string, unknown> }>): Record<string, unknown> {
  assert.equal(events[0]?.event, 'message_start');
  assert.equal(events.at(-1)?.event, 'message_stop');
  const message = structuredClone(events[0]?.data.message) as {
    content: Array<Record<string, unknown>>;
    [k: string]: unknown;
  };
  let open: number | undefined;
  const json: Record<number, string> = {};
  for (const { event, data } of events.slice(1, -1)) {
    if (event === 'content_block_start') {
      assert.equal(open, undefined, 'one block open at a time');
      assert.equal(data.index, message.content.length, 'indexes are positions (rule A3)');
      open = data.index as number;
      message.content.push(structuredClone(data.content_block) as Record<string, unknown>);
    } else if (event === 'content_block_delta') {
      assert.equal(data.index, open);
      const block = message.content[open as number] as Record<string, unknown>;
      const delta = data.delta as Record<string, string>;
      const kinds: Record<string, string> = {
        text_delta: 'text',
        thinking_delta: 'thinking',
        signature_delta: 'thinking',
        input_json_delta: 'tool_use',
      };
      assert.equal(
        block.type,
        kinds[delta.type as string],
        `${delta.type} into a ${String(block.type)} block (rule A4)`,
      );
      if (delta.type === 'text_delta') block.text = `${block.text as string}${delta.text}`;
      if (delta.type === 'thinking_delta') block.thinking = `${block.thinking as string}${delta.thinking}`;
      if (delta.type === 'signature_delta') block.signature = delta.signature;
      if (delta.type === 'input_json_delta') json[open as number] = (json[open as number] ?? '') + delta.partial_json;
    } else if (event === 'content_block_stop') {
      assert.equal(data.index, open);
      const block = message.content[open as number] as Record<string, unknown>;
      if (block.type === 'tool_use') block.input = JSON.parse(json[open as number] ?? 'null');
      open = undefined;
    } else if (event === 'message_delta') {
      assert.equal(open, undefined);
      Object.assign(message, data.delta);
      message.usage = { ...(message.usage as object), ...(data.usage as object) };
    } else assert.fail(`unexpected event ${event}`);
  }
  return message;
}

const MIXED = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ reasoning_content: 'The user wants the tests. ' }),
  chunk({ reasoning_content: 'Run them.' }),
  chunk({ content: 'Running ' }),
  chunk({ content: 'the tests now.' }),
  chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'Bash', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command": "npm' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: ' test"}' } }] }),
  chunk({}, 'stop'),
  usageChunk({
    prompt_tokens: 120,
    completion_tokens: 30,
    total_tokens: 150,
    prompt_tokens_details: { cached_tokens: 100 },
    completion_tokens_details: { reasoning_tokens: 9 },
  }),
].join('');

test('golden: a mixed thinking + text + tool turn becomes Anthropic events in order, tool_use although the node said stop', () => {
  const events = run([MIXED]);
  const signature = { node: 'node-a' };
  assert.deepEqual(
    opened(events).map(({ data }) => data),
    [
      {
        type: 'message_start',
        message: {
          id: 'msg_REQ1',
          type: 'message',
          role: 'assistant',
          model: 'claude-via-gw',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          stop_details: null,
          container: null,
          usage: {
            input_tokens: 40,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
            output_tokens: 1,
          },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'The user wants the tests. ' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Run them.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Running ' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'the tests now.' } },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'call_1', name: 'Bash', input: {} },
      },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"command": "npm' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: ' test"}' } },
      { type: 'content_block_stop', index: 2 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null, container: null },
        usage: {
          input_tokens: 20,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 100,
          output_tokens: 30,
          output_tokens_details: { thinking_tokens: 9 },
        },
      },
      { type: 'message_stop' },
    ],
  );
});

const PARALLEL = [
  chunk({ role: 'assistant', content: null }),
  chunk({
    tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'Read', arguments: '{"file_' } }],
  }),
  chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'Glob', arguments: '{"pat' } }] }),
  // Interleaved: the first call's arguments continue after the second started (rule A7).
  chunk({ tool_calls: [{ index: 0, function: { arguments: 'path":"a.txt"}' } }] }),
  chunk({ tool_calls: [{ index: 1, function: { arguments: 'tern":"*.ts"}' } }] }),
  chunk({ tool_calls: [{ index: 2, id: 'call_c', type: 'function', function: { name: 'Now', arguments: '' } }] }),
  chunk({}, 'tool_calls'),
].join('');

test('golden: parallel tool calls each get their own block, indexes 0, 1, 2, arguments intact even when interleaved', () => {
  const events = run([PARALLEL], { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 });
  assert.deepEqual(
    events.slice(1, -2).map(({ data }) => data),
    [
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'call_a', name: 'Read', input: {} },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"file_' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 'path":"a.txt"}' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'call_b', name: 'Glob', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"pattern":"*.ts"}' },
      },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'call_c', name: 'Now', input: {} },
      },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 2 },
    ],
  );
  const message = accumulate(events);
  assert.equal(message.stop_reason, 'tool_use');
  assert.deepEqual(
    (message.content as Array<Record<string, unknown>>).map((block) => block.input),
    [{ file_path: 'a.txt' }, { pattern: '*.ts' }, {}],
  );
});

test('the same events whatever the splits of the internal stream', () => {
  for (const stream of [MIXED, PARALLEL]) {
    const whole = opened(run([stream]));
    for (let seed = 1; seed <= 40; seed++)
      assert.deepEqual(opened(run(randomPieces(stream, seed, 25))), whole, `seed ${seed}`);
  }
});

test('stop reasons: length wins over a tool call, a named stop sequence, end_turn; no block for empty text (A5)', () => {
  const cut = run([
    chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'x', arguments: '{"a":1}' } }] }),
    chunk({}, 'length'),
  ]);
  assert.equal(accumulate(cut).stop_reason, 'max_tokens');
  const matched = run([
    chunk({ content: 'one two' }),
    chunk({}, 'stop', {}).replace('"finish_reason":"stop"', '"finish_reason":"stop","stop_reason":"END"'),
  ]);
  assert.deepEqual([accumulate(matched).stop_reason, accumulate(matched).stop_sequence], ['stop_sequence', 'END']);
  const empty = run([chunk({ content: '' }), chunk({ content: '' }, 'stop')]);
  assert.deepEqual(events(empty), ['message_start', 'message_delta', 'message_stop']);
  assert.equal(accumulate(empty).stop_reason, 'end_turn');
});

function events(list: Array<{ event: string }>): string[] {
  return list.map(({ event }) => event);
}

test('Gemini thought signatures on calls are sealed into a thinking block before the calls, for the next turn', () => {
  const out = run([
    chunk({ reasoning_content: 'plan' }),
    chunk({
      tool_calls: [
        {
          index: 0,
          id: 'g1',
          function: { name: 'Read', arguments: '{}' },
          extra_content: { google: { thought_signature: 'SIG1' } },
        },
      ],
    }),
    chunk({
      tool_calls: [
        {
          index: 1,
          id: 'g2',
          function: { name: 'Read', arguments: '{}' },
          extra_content: { google: { thought_signature: 'SIG2' } },
        },
      ],
    }),
    chunk({}, 'stop'),
  ]);
  const content = accumulate(out).content as Array<Record<string, unknown>>;
  assert.deepEqual(
    content.map((block) => block.type),
    ['thinking', 'tool_use', 'thinking', 'tool_use'],
  );
  assert.deepEqual(envelopes.open(content[0]?.signature), { node: 'node-a', toolSignatures: { g1: 'SIG1' } });
  assert.deepEqual(envelopes.open(content[2]?.signature), { node: 'node-a', toolSignatures: { g2: 'SIG2' } });
});

test('a failure after the start ends with an Anthropic error event, no message_stop', () => {
  const stream = translator();
  let out = stream.write(chunksOfText(chunk({ content: 'partial' })));
  out += stream.fail(
    [],
    JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'node failed' }, request_id: 'REQ1' }),
  );
  const list = parseEvents(out);
  assert.deepEqual(events(list), ['message_start', 'content_block_start', 'content_block_delta', 'error']);
  assert.deepEqual(list.at(-1)?.data.error, { type: 'api_error', message: 'node failed' });
});
