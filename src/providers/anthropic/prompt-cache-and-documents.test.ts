import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureContext, fixtureNode, unexpectedWrite } from '../../../test/support/adapter-fixtures.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import type { ChatCompletionChunk } from '../../protocol/openai/chat-response-types.js';
import { anthropicAdapter } from './adapter.js';

// PRODUCT.md decision 21: cache_control (ttl included) reaches Anthropic nodes on system
// text, content parts, messages and tools; cache reads and writes (5 minutes and 1 hour)
// come back in usage without a token counted twice; `file` parts become document blocks.

const node = fixtureNode('anthropic');
const bodyOf = (request: Record<string, unknown>) => {
  const full = {
    model: 'client-model',
    messages: [{ role: 'user', content: 'Hi' }],
    ...request,
  } as unknown as ChatRequest;
  return JSON.parse(anthropicAdapter.toUpstream(full, fixtureContext(node, {}, full)).body) as Record<string, unknown>;
};
const HOUR = { type: 'ephemeral', ttl: '1h' };
const FIVE = { type: 'ephemeral' };
const PDF = Buffer.from('%PDF-1.4 the yard timetable').toString('base64');

test('anthropic: cache_control with its ttl reaches the node on system parts, user and assistant parts, messages and tools', () => {
  const body = bodyOf({
    messages: [
      {
        role: 'system',
        content: [
          { type: 'text', text: 'You run the yard.' },
          { type: 'text', text: 'Long rules…', cache_control: HOUR },
        ],
      },
      { role: 'developer', content: 'Be brief.', cache_control: FIVE },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The manual:' },
          {
            type: 'file',
            file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'manual.pdf' },
            cache_control: HOUR,
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Read it.', cache_control: FIVE }] },
      { role: 'user', content: 'When does it open?', cache_control: FIVE },
    ],
    tools: [
      { type: 'function', function: { name: 'a', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'b' }, cache_control: HOUR },
    ],
  });
  assert.deepEqual(body.system, [
    { type: 'text', text: 'You run the yard.' },
    { type: 'text', text: 'Long rules…', cache_control: HOUR },
    { type: 'text', text: 'Be brief.', cache_control: FIVE },
  ]);
  assert.deepEqual(body.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'The manual:' },
        {
          type: 'document',
          source: { type: 'base64', media_type: 'application/pdf', data: PDF },
          title: 'manual.pdf',
          cache_control: HOUR,
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Read it.', cache_control: FIVE }] },
    { role: 'user', content: [{ type: 'text', text: 'When does it open?', cache_control: FIVE }] },
  ]);
  assert.deepEqual(body.tools, [
    { name: 'a', input_schema: { type: 'object' } },
    { name: 'b', input_schema: { type: 'object', properties: {} }, cache_control: HOUR },
  ]);
});

test('anthropic: a tool result marked with cache_control keeps it; system text without breakpoints is still one block', () => {
  const body = bodyOf({
    messages: [
      {
        role: 'system',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'result', cache_control: HOUR },
    ],
  });
  assert.deepEqual(body.system, [{ type: 'text', text: 'a\nb' }]);
  assert.deepEqual((body.messages as Array<{ content: unknown[] }>)[1]?.content, [
    { type: 'tool_result', tool_use_id: 'c1', content: 'result', cache_control: HOUR },
  ]);
});

test('anthropic: a plain-text file is a text document; other files, files by id, audio and a cache_control that is not an object are a 400 naming the part', () => {
  const text = bodyOf({
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'file',
            file: { file_data: `data:text/plain;base64,${Buffer.from('Gate 4 opens at six.').toString('base64')}` },
          },
        ],
      },
    ],
  });
  assert.deepEqual((text.messages as Array<{ content: unknown[] }>)[0]?.content, [
    { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Gate 4 opens at six.' } },
  ]);
  const cases: Array<[unknown[], string]> = [
    [
      [
        { type: 'text', text: 'x' },
        { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
      ],
      'messages[0].content[1]',
    ],
    [
      [{ type: 'file', file: { file_data: 'data:application/zip;base64,AAAA' } }],
      'messages[0].content[0].file.file_data',
    ],
    [[{ type: 'file', file: { file_id: 'file-abc' } }], 'messages[0].content[0]'],
    [[{ type: 'file', file: { file_data: 'not a data url' } }], 'messages[0].content[0].file.file_data'],
    [[{ type: 'text', text: 'x', cache_control: 'ephemeral' }], 'messages[0].content[0].cache_control'],
  ];
  for (const [content, param] of cases) {
    assert.throws(
      () => bodyOf({ messages: [{ role: 'user', content }] }),
      (error: unknown) =>
        error instanceof GatewayError &&
        error.code === 'validation_failed' &&
        error.status === 400 &&
        error.param === param,
      param,
    );
  }
});

const USAGE = {
  input_tokens: 100,
  cache_read_input_tokens: 2000,
  cache_creation_input_tokens: 1500,
  cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 1000 },
  output_tokens: 40,
};
const MAPPED = {
  prompt_tokens: 3600,
  completion_tokens: 40,
  total_tokens: 3640,
  prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 1500, cache_write_1h_tokens: 1000 },
  completion_tokens_details: { reasoning_tokens: 0 },
};

test('anthropic: cache reads and 5-minute and 1-hour writes map into prompt_tokens (the total) and its details, JSON and stream', () => {
  const reply = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude',
    content: [{ type: 'text', text: 'Six.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: USAGE,
  };
  const json = JSON.parse(anthropicAdapter.fromUpstream(JSON.stringify(reply), fixtureContext(node)).body) as {
    usage: unknown;
  };
  assert.deepEqual(json.usage, MAPPED);

  const mapper = anthropicAdapter.streamMapper(fixtureContext(node, { stream: true }));
  const { output_tokens: _output, ...input } = USAGE;
  const events: Array<[string, object]> = [
    [
      'message_start',
      {
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude',
          content: [],
          usage: { ...input, output_tokens: 1 },
        },
      },
    ],
    ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Six.' } }],
    ['content_block_stop', { index: 0 }],
    ['message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 40 } }],
    ['message_stop', {}],
  ];
  const chunks: ChatCompletionChunk[] = [];
  for (const [event, data] of events)
    mapper.map(
      { event, data: JSON.stringify({ type: event, ...data }) },
      (chunk) => chunks.push(chunk),
      unexpectedWrite,
    );
  assert.deepEqual(chunks.at(-1)?.usage, MAPPED);
  assert.deepEqual(mapper.summary.usage, MAPPED);

  // Only 5-minute writes: no 1-hour field.
  const fiveOnly = {
    ...reply,
    usage: { input_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 300, output_tokens: 5 },
  };
  const mapped = JSON.parse(anthropicAdapter.fromUpstream(JSON.stringify(fiveOnly), fixtureContext(node)).body) as {
    usage: { prompt_tokens: number; prompt_tokens_details: unknown };
  };
  assert.equal(mapped.usage.prompt_tokens, 310);
  assert.deepEqual(mapped.usage.prompt_tokens_details, { cached_tokens: 0, cache_write_tokens: 300 });
});
