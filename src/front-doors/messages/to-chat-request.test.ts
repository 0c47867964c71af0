import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGatewayError } from '../../errors/gateway-error.js';
import { parseMessagesRequest } from './validate-messages-request.js';
import { ReasoningEnvelope } from '../reasoning-envelope.js';
import { ThinkingSignatures } from './thinking-signatures.js';
import { carriedByChat, leftOutBlocks, toChatRequest } from './to-chat-request.js';

const envelopes = new ThinkingSignatures(new ReasoningEnvelope(Buffer.from('test-secret')));
const CAPS = { maxMessages: 100, maxChoices: 1, maxJsonDepth: 64 };

function translate(body: Record<string, unknown>) {
  return toChatRequest(parseMessagesRequest(JSON.stringify({ model: 'm', max_tokens: 512, ...body }), CAPS), envelopes);
}

function rejects(body: Record<string, unknown>, param: string, parse = false): void {
  assert.throws(
    () => (parse ? parseMessagesRequest(JSON.stringify(body), CAPS) : translate(body)),
    (error: unknown) => isGatewayError(error) && error.status === 400 && error.param === param,
    param,
  );
}

test('a Claude Code tool loop turn: system blocks, tool_use ↔ tool_calls, every tool_result block, images after the results', () => {
  const { chat } = translate({
    system: [
      { type: 'text', text: 'attribution' },
      { type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } },
    ],
    messages: [
      { role: 'user', content: 'Read notes.txt' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/tmp/notes.txt' } },
          { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: '/tmp/b.png' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [
              { type: 'text', text: 'line 1' },
              { type: 'text', text: 'line 2' },
            ],
          },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            is_error: true,
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }],
          },
          { type: 'text', text: 'Go on.' },
        ],
      },
    ],
    tools: [
      {
        name: 'Read',
        description: 'Reads a file',
        input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
        cache_control: { type: 'ephemeral' },
      },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
    ],
    tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    context_management: { edits: [] },
    stop_sequences: ['END'],
    temperature: 0.5,
    top_k: 5,
    metadata: { user_id: 'x'.repeat(100) },
    stream: true,
  });
  assert.deepEqual(chat.messages, [
    {
      role: 'system',
      content: [
        { type: 'text', text: 'attribution' },
        { type: 'text', text: 'You are an agent.' },
      ],
    },
    { role: 'user', content: 'Read notes.txt' },
    {
      role: 'assistant',
      content: 'Reading it.',
      tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/tmp/notes.txt"}' } },
        { id: 'toolu_2', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/tmp/b.png"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: 'line 1\nline 2' },
    { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: (the result is in the images that follow)' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Go on.' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
    },
  ]);
  // The server tool is withdrawn, the hints dropped, the rest mapped.
  assert.deepEqual(chat.tools, [
    {
      type: 'function',
      function: {
        name: 'Read',
        parameters: { type: 'object', properties: { file_path: { type: 'string' } } },
        description: 'Reads a file',
      },
    },
  ]);
  assert.equal(chat.tool_choice, 'auto');
  assert.equal(chat.parallel_tool_calls, false);
  assert.deepEqual(chat.stop, ['END']);
  assert.equal(chat.temperature, 0.5);
  assert.equal(chat.top_k, undefined);
  assert.equal(chat.context_management, undefined);
  assert.equal(chat.user?.length, 64);
  assert.equal(chat.max_tokens, 512);
  assert.deepEqual([chat.stream, chat.stream_options], [true, { include_usage: true }]);
});

test('thinking: effort from output_config, a budget as reasoning.max_tokens; a sealed thinking block comes back to its node', () => {
  const adaptive = translate({
    thinking: { type: 'adaptive' },
    output_config: { effort: 'high' },
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(adaptive.chat.reasoning_effort, 'high');
  assert.equal(adaptive.effortParam, 'output_config.effort');
  const budget = translate({
    thinking: { type: 'enabled', budget_tokens: 2048 },
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.deepEqual(budget.chat.reasoning, { max_tokens: 2048 });

  const sealed = envelopes.seal({ node: 'gemini-1', toolSignatures: { call_9: 'SIG' } });
  const turn = translate({
    messages: [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Anthropic thought', signature: 'EqNative' },
          { type: 'thinking', thinking: 'Gemini thought', signature: sealed },
          { type: 'tool_use', id: 'call_9', name: 'Read', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_9', content: 'ok' }] },
    ],
  });
  assert.equal(turn.affinityNode, 'gemini-1');
  assert.deepEqual(turn.chat.messages[1], {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_9',
        type: 'function',
        function: { name: 'Read', arguments: '{}' },
        extra_content: { google: { thought_signature: 'SIG' } },
      },
    ],
    reasoning_content: 'Gemini thought',
  });
  // A forged envelope is believed by nobody.
  const forged = `${sealed.slice(0, -4)}AAAA`;
  const none = translate({
    messages: [
      { role: 'user', content: 'a' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't', signature: forged },
          { type: 'text', text: 'b' },
        ],
      },
    ],
  });
  assert.equal(none.affinityNode, undefined);
  assert.deepEqual(none.chat.messages[1], { role: 'assistant', content: 'b' });
});

test('documents: PDF as a file part, text inline; a mid-conversation system message stays in place', () => {
  const { chat } = translate({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'document', title: 'r.pdf', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' } },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } },
        ],
      },
      { role: 'assistant', content: 'seen' },
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'sum up' },
    ],
  });
  assert.deepEqual(chat.messages, [
    {
      role: 'user',
      content: [
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'r.pdf' } },
        { type: 'text', text: 'plain words' },
      ],
    },
    { role: 'assistant', content: 'seen' },
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'sum up' },
  ]);
});

test('400s name the parameter: bad shapes, demands the chat form cannot carry', () => {
  rejects({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, 'max_tokens', true);
  rejects({ model: 'm', max_tokens: 5, messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role', true);
  rejects(
    { model: 'm', max_tokens: 5, temperature: 1.5, messages: [{ role: 'user', content: 'x' }] },
    'temperature',
    true,
  );
  rejects({ model: 'm', max_tokens: 5, messages: [] }, 'messages', true);
  rejects(
    { messages: [{ role: 'user', content: [{ type: 'search_result', source: 's', title: 't', content: [] }] }] },
    'messages[0].content[0]',
  );
  rejects(
    { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] },
    'messages[0].content[0].source',
  );
  rejects({ messages: [{ role: 'user', content: 'x' }], stop_sequences: ['a', 'b', 'c', 'd', 'e'] }, 'stop_sequences');
  rejects(
    {
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      tool_choice: { type: 'tool', name: 'web_search' },
    },
    'tool_choice',
  );
  rejects(
    {
      messages: [{ role: 'user', content: 'x' }],
      tools: [
        { name: 'a', input_schema: { type: 'object' } },
        { type: 'bash_20250124', name: 'bash' },
      ],
      tool_choice: { type: 'tool', name: 'bash' },
    },
    'tool_choice.name',
  );
  rejects({ messages: [{ role: 'user', content: 'x' }], container: 'c1' }, 'container');
});

test('for a native-only model, what the chat form leaves out is returned for pricing: blocks naming content the node fetches (files by id, container uploads, documents by URL) counted, server-tool turns as text', () => {
  const request = parseMessagesRequest(
    JSON.stringify({
      model: 'm',
      max_tokens: 16,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'document', source: { type: 'file', file_id: 'file_1' } },
            { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
            { type: 'container_upload', file_id: 'file_2' },
            { type: 'text', text: 'Read these.' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'look', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [{ type: 'image', source: { type: 'file', file_id: 'f3' } }],
            },
          ],
        },
      ],
    }),
    CAPS,
  );
  assert.deepEqual(
    leftOutBlocks(request),
    { unresolved: 4, text: [] },
    'two files by id, one upload, one document by URL; an image by URL is carried',
  );
  const { chat } = toChatRequest(carriedByChat(request), envelopes);
  assert.deepEqual(chat.messages[0], {
    role: 'user',
    content: [
      { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
      { type: 'text', text: 'Read these.' },
    ],
  });
  assert.deepEqual(
    leftOutBlocks(
      parseMessagesRequest(
        JSON.stringify({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }),
        CAPS,
      ),
    ),
    { unresolved: 0, text: [] },
  );
  const searchResult = { type: 'search_result', source: 's', title: 't', content: [{ type: 'text', text: 'found' }] };
  const serverTurn = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } };
  const withServerTurns = parseMessagesRequest(
    JSON.stringify({
      model: 'm',
      max_tokens: 1,
      messages: [
        { role: 'user', content: [searchResult, { type: 'text', text: 'Use it.' }] },
        { role: 'assistant', content: [serverTurn, { type: 'text', text: 'Done.' }] },
      ],
    }),
    CAPS,
  );
  assert.deepEqual(
    leftOutBlocks(withServerTurns),
    { unresolved: 0, text: [JSON.stringify(searchResult), JSON.stringify(serverTurn)] },
    'content the chat form has no place for is priced as its text',
  );
});
