import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reservedPromptTokens, unresolvedInputsOf } from '../../billing/unresolved-inputs.js';
import type { ModelConfig } from '../../config/gateway-config.js';
import { isGatewayError } from '../../errors/gateway-error.js';
import type { CreateResponseRequest } from './create-response-schema.js';
import { parseCreateResponse } from './parse-create-response.js';
import { ReasoningEnvelope } from '../reasoning-envelope.js';
import { toChatRequest, type ConversationContext } from './to-chat-request.js';

const CAPS = { maxMessages: 100, maxChoices: 1, maxJsonDepth: 64 };
const envelope = new ReasoningEnvelope(Buffer.from('test-secret'));
const readsReasoning = (node: string) => node !== 'node-elsewhere';
const none: ConversationContext = { history: [], references: new Map(), envelope, readsReasoning };

function translate(body: Record<string, unknown>, conversation: ConversationContext = none) {
  return toChatRequest(parseCreateResponse(JSON.stringify({ model: 'm', ...body }), CAPS), conversation);
}

function rejects(run: () => unknown, status: number, param: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(isGatewayError(error));
    assert.equal(error.status, status);
    assert.equal(error.param, param);
    return true;
  });
}

test('text input, instructions and the settings map to their chat names; gateway-owned fields stay behind', () => {
  const { chat } = translate({
    input: 'Hello',
    instructions: 'Be brief.',
    max_output_tokens: 300,
    temperature: 0.5,
    top_p: 0.9,
    reasoning: { effort: 'high', summary: 'auto' },
    text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
    prompt_cache_key: 'thread-1',
    store: false,
    metadata: { a: 'b' },
    include: ['reasoning.encrypted_content'],
    truncation: 'auto',
    stream: true,
  });
  assert.deepEqual(chat, {
    model: 'm',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ],
    reasoning_effort: 'high',
    response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
    max_completion_tokens: 300,
    temperature: 0.5,
    top_p: 0.9,
    prompt_cache_key: 'thread-1',
    stream: true,
    stream_options: { include_usage: true },
  });
});

test('items: parts, calls joined to the assistant turn, outputs as tool messages, tool images in a user message', () => {
  const { chat } = translate({
    input: [
      { role: 'developer', content: 'Rules.' },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'Look: ' },
          { type: 'input_image', image_url: 'data:image/png;base64,AA==', detail: 'low' },
        ],
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
      { type: 'function_call', call_id: 'c1', name: 'get', arguments: '{"a":1}' },
      { type: 'function_call', call_id: 'c2', name: 'get', arguments: '{"a":2}', namespace: 'ns' },
      { type: 'function_call_output', call_id: 'c1', output: 'one' },
      {
        type: 'function_call_output',
        call_id: 'c2',
        output: [
          { type: 'input_text', text: 'two' },
          { type: 'input_image', image_url: 'https://x/i.png' },
        ],
      },
      { type: 'custom_tool_call', call_id: 'c3', name: 'apply_patch', input: '*** Begin' },
      { type: 'custom_tool_call_output', call_id: 'c3', output: 'applied' },
      { type: 'web_search_call', id: 'ws_1', status: 'completed' },
    ],
  });
  assert.deepEqual(chat.messages, [
    { role: 'developer', content: 'Rules.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Look: ' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==', detail: 'low' } },
      ],
    },
    {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'get', arguments: '{"a":1}' } },
        { id: 'c2', type: 'function', function: { name: 'ns__get', arguments: '{"a":2}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'one' },
    { role: 'tool', tool_call_id: 'c2', content: 'two' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/i.png' } }] },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c3', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c3', content: 'applied' },
  ]);
});

test('tools: functions, custom and namespace tools become functions; hosted ones are withdrawn; names map back', () => {
  const { chat, toolNames } = translate({
    input: 'go',
    tools: [
      { type: 'function', name: 'get', description: 'd', parameters: { type: 'object' }, strict: false },
      {
        type: 'custom',
        name: 'apply_patch',
        description: 'patch',
        format: { type: 'grammar', syntax: 'lark', definition: 'x' },
      },
      { type: 'namespace', name: 'mcp', tools: [{ type: 'function', name: 'read', parameters: { type: 'object' } }] },
      { type: 'web_search' },
      { type: 'local_shell' },
    ],
    tool_choice: { type: 'custom', name: 'apply_patch' },
    parallel_tool_calls: false,
  });
  assert.deepEqual(
    chat.tools?.map((tool) => (tool as unknown as { function: { name: string } }).function.name),
    ['get', 'apply_patch', 'mcp__read'],
  );
  assert.deepEqual(chat.tool_choice, { type: 'function', function: { name: 'apply_patch' } });
  assert.equal(chat.parallel_tool_calls, false);
  assert.deepEqual(toolNames.clientTool('apply_patch'), { kind: 'custom', name: 'apply_patch' });
  assert.deepEqual(toolNames.clientTool('mcp__read'), { kind: 'namespaced', namespace: 'mcp', name: 'read' });
  assert.deepEqual(toolNames.clientTool('get'), { kind: 'function', name: 'get' });
});

test('only hosted tools offered: no tools reach the node; forcing a hosted tool is a 400 naming tool_choice', () => {
  const { chat } = translate({ input: 'go', tools: [{ type: 'web_search' }], tool_choice: 'auto' });
  assert.equal(chat.tools, undefined);
  assert.equal(chat.tool_choice, undefined);
  rejects(
    () => translate({ input: 'go', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } }),
    400,
    'tool_choice',
  );
});

test('reasoning in our envelope goes back to the next assistant turn with its node; other reasoning is dropped', () => {
  const sealed = envelope.seal('node-b', { thinking_blocks: [{ type: 'thinking', thinking: 't', signature: 's' }] });
  const result = translate({
    input: [
      { role: 'user', content: 'q' },
      { type: 'reasoning', summary: [], encrypted_content: 'gAAAAB-openai-blob' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'x' }], encrypted_content: sealed },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'r' },
    ],
  });
  assert.equal(result.reasoningNode, 'node-b');
  assert.deepEqual(result.chat.messages[1], {
    role: 'assistant',
    content: null,
    thinking_blocks: [{ type: 'thinking', thinking: 't', signature: 's' }],
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
  });
  const elsewhere = envelope.seal('node-elsewhere', { reasoning_content: 'r' });
  const notServing = translate({
    input: [
      { type: 'reasoning', summary: [], encrypted_content: elsewhere },
      { role: 'assistant', content: 'a' },
    ],
  });
  assert.equal(notServing.reasoningNode, undefined, 'a node that will not be asked gets nothing back');
  assert.deepEqual(notServing.chat.messages[0], { role: 'assistant', content: 'a' });
  const forged = `${sealed.slice(0, -3)}abc`;
  const dropped = translate({
    input: [
      { type: 'reasoning', summary: [], encrypted_content: forged },
      { role: 'assistant', content: 'a' },
      { role: 'user', content: 'b' },
    ],
  });
  assert.equal(dropped.reasoningNode, undefined);
  assert.deepEqual(dropped.chat.messages[0], { role: 'assistant', content: 'a' });
});

test('the stored conversation comes before the input, item references are resolved, unknown ones are 404', () => {
  const conversation: ConversationContext = {
    readsReasoning,
    history: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first' }] },
      { type: 'message', role: 'assistant', id: 'msg_1', content: [{ type: 'output_text', text: 'answer' }] },
    ],
    references: new Map([
      ['msg_9', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'stored' }] }],
    ]),
    envelope,
  };
  const { chat } = translate(
    {
      input: [
        { type: 'item_reference', id: 'msg_9' },
        { role: 'user', content: 'next' },
      ],
      instructions: 'sys',
    },
    conversation,
  );
  assert.deepEqual(chat.messages, [
    { role: 'system', content: 'sys' },
    { role: 'user', content: [{ type: 'text', text: 'first' }] },
    { role: 'assistant', content: 'answer' },
    { role: 'assistant', content: 'stored' },
    { role: 'user', content: 'next' },
  ]);
  rejects(() => translate({ input: [{ type: 'item_reference', id: 'rs_unknown' }] }), 404, 'input[0]');
  const forNative = translate(
    {
      input: [
        { type: 'item_reference', id: 'msg_openai_own' },
        { role: 'user', content: 'next' },
      ],
    },
    { ...none, servedNatively: true },
  );
  assert.deepEqual(forNative.chat.messages, [{ role: 'user', content: 'next' }], 'left for the native node to resolve');
  assert.equal(unresolvedInputsOf(forNative.chat, forNative.leftOut), 1, 'and counted, for the reservation to bound');
  const storedUnresolved = translate(
    { input: 'next' },
    { ...none, history: [{ type: 'item_reference', id: 'msg_openai_own' }], servedNatively: true },
  );
  assert.equal(
    unresolvedInputsOf(storedUnresolved.chat, storedUnresolved.leftOut),
    1,
    'one in the stored conversation counts the same',
  );
  const stored = translate({ input: [{ type: 'item_reference', id: 'msg_9' }] }, conversation);
  assert.equal(unresolvedInputsOf(stored.chat, stored.leftOut), 0);
});

test('for a native node, hosted-tool turns and reasoning not given back are left out of the chat form but priced as their text', () => {
  const hosted = { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } };
  const foreign = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA-openai-own-blob' };
  const body = { input: [hosted, foreign, { role: 'user', content: 'next' }] };
  const model = { id: 'm', contextLength: undefined } as ModelConfig;
  const characters = (text: string) => text.length;
  const native = translate(body, { ...none, servedNatively: true });
  assert.deepEqual(native.chat.messages, [{ role: 'user', content: 'next' }]);
  assert.equal(
    reservedPromptTokens(native.chat, model, 0, characters, native.leftOut),
    JSON.stringify(hosted).length + JSON.stringify(foreign).length,
  );
  assert.equal(
    reservedPromptTokens(translate(body).chat, model, 0, characters, translate(body).leftOut),
    0,
    'a translated node never gets them',
  );
});

test('bad input is a 400 naming the parameter', () => {
  rejects(() => parseCreateResponse(JSON.stringify({ input: 'x' }), CAPS), 400, 'model');
  rejects(
    () => parseCreateResponse(JSON.stringify({ model: 'm', input: 'x', temperature: 3 }), CAPS),
    400,
    'temperature',
  );
  rejects(
    () => parseCreateResponse(JSON.stringify({ model: 'm', input: 'x', conversation: 'c' }), CAPS),
    400,
    'conversation',
  );
  rejects(
    () => parseCreateResponse(JSON.stringify({ model: 'm', input: 'x', background: true }), CAPS),
    400,
    'background',
  );
  rejects(() => parseCreateResponse(JSON.stringify({ model: 'm', input: Array(101).fill('x') }), CAPS), 400, 'input');
  rejects(() => translate({ input: [{ type: 'function_call_output', output: 'x' }] }), 400, 'input[0].call_id');
  rejects(() => translate({ input: [{ role: 'robot', content: 'x' }] }), 400, 'input[0].role');
  rejects(
    () => translate({ input: [{ role: 'user', content: [{ type: 'input_audio' }] }] }),
    400,
    'input[0].content[0].type',
  );
  rejects(() => translate({ input: [] }), 400, 'input');
  rejects(
    () => translate({ input: 'x', text: { format: { type: 'json_schema', schema: {} } } }),
    400,
    'text.format.name',
  );
});

test('a Responses request the schema accepts has its type', () => {
  const parsed: CreateResponseRequest = parseCreateResponse('{"model":"m","input":"x","vendor_field":1}', CAPS);
  assert.equal(parsed.vendor_field, 1);
});

test('additional_tools input items (Codex CLI): their tools join the offer, once each, and the item is no message', () => {
  const weather = { type: 'function', name: 'get_weather', parameters: { type: 'object' } };
  const declared = {
    type: 'additional_tools',
    role: 'developer',
    tools: [
      weather,
      { type: 'namespace', name: 'mcp', tools: [{ type: 'function', name: 'read' }] },
      { type: 'web_search' },
    ],
  };
  const { chat, toolNames } = translate({
    input: [declared, { role: 'user', content: 'go' }, declared],
    tools: [{ type: 'custom', name: 'apply_patch' }],
    tool_choice: { type: 'function', name: 'get_weather' },
  });
  assert.deepEqual(chat.messages, [{ role: 'user', content: 'go' }]);
  assert.deepEqual(
    chat.tools?.map((tool) => (tool as unknown as { function: { name: string } }).function.name),
    ['apply_patch', 'get_weather', 'mcp__read'],
  );
  assert.deepEqual(chat.tool_choice, { type: 'function', function: { name: 'get_weather' } });
  assert.deepEqual(toolNames.clientTool('mcp__read'), { kind: 'namespaced', namespace: 'mcp', name: 'read' });
  // Codex 0.171's code mode: a custom tool inside a namespace is a function of one string, given back as custom.
  const codeMode = translate({
    input: [
      {
        type: 'additional_tools',
        role: 'developer',
        tools: [{ type: 'namespace', name: 'functions', tools: [{ type: 'custom', name: 'exec', description: 'd' }] }],
      },
      { role: 'user', content: 'go' },
    ],
  });
  assert.deepEqual(codeMode.chat.tools, [
    {
      type: 'function',
      function: {
        name: 'functions__exec',
        description: 'd',
        parameters: {
          type: 'object',
          properties: { input: { type: 'string', description: 'The raw input of the tool.' } },
          required: ['input'],
          additionalProperties: false,
        },
      },
    },
  ]);
  assert.deepEqual(codeMode.toolNames.clientTool('functions__exec'), {
    kind: 'custom',
    name: 'exec',
    namespace: 'functions',
  });
  // Replayed from a stored conversation, the item offers its tools too.
  const continued = translate(
    { input: 'again' },
    { ...none, history: [declared, { type: 'message', role: 'user', content: 'go' }] },
  );
  assert.equal(continued.chat.tools?.length, 2);
});

test('an additional_tools item without a tools array, or with a tool without a type, is a 400 naming it', () => {
  rejects(
    () => translate({ input: [{ type: 'additional_tools' }, { role: 'user', content: 'go' }] }),
    400,
    'input[0].tools',
  );
  rejects(
    () =>
      translate({
        input: [
          { role: 'user', content: 'go' },
          { type: 'additional_tools', tools: [{ name: 'x' }] },
        ],
      }),
    400,
    'input[1].tools[0].type',
  );
  rejects(
    () =>
      translate({
        input: [
          { type: 'additional_tools', tools: [{ type: 'function', name: '' }] },
          { role: 'user', content: 'go' },
        ],
      }),
    400,
    'input[0].tools[0].name',
  );
});
