import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixtureContext, fixtureNode, runFixtureCases } from '../../../test/support/adapter-fixtures.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { anthropicAdapter } from './adapter.js';

runFixtureCases(anthropicAdapter, join(import.meta.dirname, '__fixtures__'));

const node = fixtureNode('anthropic');
const ask = (fields: Partial<ChatRequest>): ChatRequest => ({
  model: 'client-model',
  messages: [{ role: 'user', content: 'Hi' }],
  ...fields,
});
/** `null`: a model without reasoning. */
const bodyOf = (request: ChatRequest, effort: 'low' | 'medium' | 'high' | null) =>
  JSON.parse(
    anthropicAdapter.toUpstream(request, fixtureContext(node, { effort: effort ?? undefined }, request)).body,
  ) as Record<string, unknown>;

test('anthropic: thinking budgets rise with effort and stay below max_tokens; too small a max_tokens leaves thinking off', () => {
  const budgets = (['low', 'medium', 'high'] as const).map(
    (effort) => (bodyOf(ask({}), effort).thinking as { budget_tokens: number }).budget_tokens,
  );
  assert.deepEqual(budgets, [1024, 8192, 15999], 'high is clamped below the default max_tokens of 16000');
  const small = bodyOf(ask({ max_tokens: 1024, temperature: 0.2 }), 'low');
  assert.equal(small.thinking, undefined, 'no room for the 1024-token minimum');
  assert.equal(small.temperature, 0.2, 'sampling kept when thinking is off');
});

test('anthropic: what the protocol cannot express is a 400 naming the parameter', () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ n: 2 }, 'n'],
    [{ temperature: 1.5 }, 'temperature'],
    [{ response_format: { type: 'json_object' } }, 'response_format'],
    [{ tools: [{ type: 'custom' }] }, 'tools[0]'],
    [{ messages: [{ role: 'user', content: [{ type: 'input_audio' }] }] }, 'messages[0].content[0]'],
    [
      {
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,AA==' } }] },
        ],
      },
      'messages[0].content[0].image_url.url',
    ],
    [
      {
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: 'not json' } }],
          },
        ],
      },
      'messages[0].tool_calls[0].function.arguments',
    ],
    [{ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    [
      {
        messages: [
          { role: 'assistant', content: 'x', thinking_blocks: [{ type: 'thinking', thinking: 'no signature' }] },
        ],
      },
      'messages[0].thinking_blocks[0]',
    ],
  ];
  for (const [fields, param] of cases) {
    assert.throws(
      () => bodyOf(ask(fields as Partial<ChatRequest>), null),
      (error: unknown) =>
        error instanceof GatewayError &&
        error.code === 'validation_failed' &&
        error.status === 400 &&
        error.param === param,
      param,
    );
  }
});

test('anthropic: consecutive turns of one role are merged; empty text is left out', () => {
  const body = bodyOf(
    ask({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: '' },
        { role: 'user', content: 'b' },
        { role: 'assistant', content: 'c' },
      ],
    }),
    null,
  );
  assert.deepEqual(body.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'c' }] },
  ]);
});

test('anthropic: 400/404/413 pass through with the original body; 401, 403, 408, 429, 5xx and 529 fail over', () => {
  const body = Buffer.from(
    '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"},"request_id":"req_0123"}',
  );
  for (const status of [400, 404, 413, 422]) {
    const error = anthropicAdapter.toError(status, body, 'application/json', fixtureContext(node));
    assert.equal(error.retryable, false, `status ${status}`);
    assert.equal(error.upstream?.passThrough, true);
    assert.equal(error.upstream?.status, status);
    assert.equal(error.upstream?.body, body, 'the original bytes');
    assert.equal(error.upstream?.upstreamRequestId, 'req_0123');
  }
  for (const status of [401, 403, 408, 429, 500, 504, 529]) {
    const error = anthropicAdapter.toError(
      status,
      Buffer.from('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
      'application/json',
      fixtureContext(node),
    );
    assert.equal(error.retryable, true, `status ${status}`);
    assert.equal(error.upstream?.passThrough, false);
  }
});

test('anthropic: a reply that is not a message is a retryable bad_gateway', () => {
  for (const text of ['<html>', '{"type":"error"}']) {
    assert.throws(
      () => anthropicAdapter.fromUpstream(text, fixtureContext(node)),
      (error: unknown) => error instanceof GatewayError && error.code === 'bad_gateway' && error.retryable,
    );
  }
});

test('anthropic: max_tokens is the reserved cap; one only the context bounds is sent as at most 4096', () => {
  const maxTokensOf = (outputCap: { tokens: number; contextBound: boolean }) =>
    (
      JSON.parse(
        anthropicAdapter.toUpstream(ask({ max_tokens: 50 }), fixtureContext(node, { effort: undefined, outputCap }))
          .body,
      ) as { max_tokens: number }
    ).max_tokens;
  assert.equal(
    maxTokensOf({ tokens: 300, contextBound: false }),
    300,
    'the context carries the cap, not the raw request',
  );
  assert.equal(maxTokensOf({ tokens: 150_000, contextBound: true }), 4096);
  assert.equal(maxTokensOf({ tokens: 900, contextBound: true }), 900);
});
