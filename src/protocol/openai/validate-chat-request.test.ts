import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.js';
import { parseChatRequest } from './validate-chat-request.js';

const VALID = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

function rejection(body: unknown): GatewayError {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  try {
    parseChatRequest(text);
  } catch (error) {
    assert.ok(error instanceof GatewayError, `expected a GatewayError, got ${String(error)}`);
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.status, 400);
    return error;
  }
  assert.fail(`accepted ${text}`);
}

test('accepts a minimal request and keeps unknown fields for pass-through', () => {
  const request = parseChatRequest(JSON.stringify({ ...VALID, chat_template_kwargs: { enable_thinking: true } }));
  assert.deepEqual(request.chat_template_kwargs, { enable_thinking: true });
});

test('accepts nulls where OpenAI clients send them, and assistant tool-call turns without content', () => {
  parseChatRequest(
    JSON.stringify({
      model: 'm',
      temperature: null,
      reasoning_effort: null,
      stop: null,
      messages: [
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{}' },
      ],
    }),
  );
});

const CASES: Array<[string, unknown, string | null]> = [
  ['malformed JSON', '{"model": "m",', null],
  ['a JSON array', '[1,2]', null],
  ['missing model', { messages: VALID.messages }, 'model'],
  ['empty model', { ...VALID, model: '' }, 'model'],
  ['model of the wrong type', { ...VALID, model: 42 }, 'model'],
  ['missing messages', { model: 'm' }, 'messages'],
  ['empty messages', { ...VALID, messages: [] }, 'messages'],
  ['messages not an array', { ...VALID, messages: 'hi' }, 'messages'],
  ['unknown role', { ...VALID, messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
  ['missing role', { ...VALID, messages: [{ content: 'x' }] }, 'messages[0].role'],
  ['content of the wrong type', { ...VALID, messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
  ['user message without content', { ...VALID, messages: [{ role: 'user' }] }, 'messages[0].content'],
  [
    'assistant without content or tool calls',
    { ...VALID, messages: [{ role: 'assistant', content: null }] },
    'messages[0].content',
  ],
  [
    'tool message without tool_call_id',
    { ...VALID, messages: [{ role: 'tool', content: 'x' }] },
    'messages[0].tool_call_id',
  ],
  ['temperature above 2', { ...VALID, temperature: 2.5 }, 'temperature'],
  ['temperature below 0', { ...VALID, temperature: -0.1 }, 'temperature'],
  ['temperature as a string', { ...VALID, temperature: 'hot' }, 'temperature'],
  ['top_p above 1', { ...VALID, top_p: 1.5 }, 'top_p'],
  ['n of 0', { ...VALID, n: 0 }, 'n'],
  ['fractional n', { ...VALID, n: 1.5 }, 'n'],
  ['max_tokens of 0', { ...VALID, max_tokens: 0 }, 'max_tokens'],
  ['max_completion_tokens negative', { ...VALID, max_completion_tokens: -1 }, 'max_completion_tokens'],
  ['presence_penalty above 2', { ...VALID, presence_penalty: 3 }, 'presence_penalty'],
  ['frequency_penalty below -2', { ...VALID, frequency_penalty: -3 }, 'frequency_penalty'],
  ['top_logprobs above 20', { ...VALID, top_logprobs: 21 }, 'top_logprobs'],
  ['five stop sequences', { ...VALID, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
  ['stream as a string', { ...VALID, stream: 'yes' }, 'stream'],
  ['unknown reasoning_effort', { ...VALID, reasoning_effort: 'extreme' }, 'reasoning_effort'],
  ['unknown reasoning.effort', { ...VALID, reasoning: { effort: 'ultra' } }, 'reasoning.effort'],
  ['conflicting efforts', { ...VALID, reasoning_effort: 'low', reasoning: { effort: 'high' } }, 'reasoning_effort'],
];

for (const [name, body, param] of CASES) {
  test(`400 for ${name}, param ${String(param)}`, () => {
    assert.equal(rejection(body).param, param);
  });
}

test('the same effort in both forms is not a conflict', () => {
  const request = parseChatRequest(
    JSON.stringify({ ...VALID, reasoning_effort: 'high', reasoning: { effort: 'high' } }),
  );
  assert.equal(request.reasoning_effort, 'high');
});

test('messages name the parameter and the constraint, in English and in Russian', () => {
  const error = rejection({ ...VALID, temperature: 3 });
  assert.match(error.localizedMessage('en'), /temperature.*<= 2/);
  assert.match(error.localizedMessage('ru'), /temperature.*должен быть <= 2/);
  assert.match(rejection({ ...VALID, reasoning_effort: 'x' }).message, /"low", "medium", "high"/);
});
