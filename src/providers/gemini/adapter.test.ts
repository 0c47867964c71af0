import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixtureContext, fixtureNode, runFixtureCases } from '../../../test/support/adapter-fixtures.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { geminiAdapter } from './adapter.js';

runFixtureCases(geminiAdapter, join(import.meta.dirname, '__fixtures__'));

const node = fixtureNode('gemini');
const ask = (fields: Record<string, unknown>): ChatRequest =>
  ({ model: 'client-model', messages: [{ role: 'user', content: 'Hi' }], ...fields }) as ChatRequest;
/** `null`: a model without reasoning. */
const bodyOf = (request: ChatRequest, effort: 'low' | 'medium' | 'high' | null) =>
  JSON.parse(
    geminiAdapter.toUpstream(request, fixtureContext(node, { effort: effort ?? undefined }, request)).body,
  ) as { generationConfig?: Record<string, unknown> };

test('gemini: thinking budgets rise with effort, always with includeThoughts', () => {
  const configs = (['low', 'medium', 'high'] as const).map(
    (effort) => bodyOf(ask({}), effort).generationConfig?.thinkingConfig,
  );
  assert.deepEqual(configs, [
    { thinkingBudget: 1024, includeThoughts: true },
    { thinkingBudget: 8192, includeThoughts: true },
    { thinkingBudget: 24576, includeThoughts: true },
  ]);
  assert.deepEqual(
    bodyOf(ask({}), null).generationConfig,
    { maxOutputTokens: 16000 },
    'no thinking for a model without reasoning, only the reserved cap',
  );
});

test('gemini: what the protocol cannot express is a 400 naming the parameter', () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ n: 3 }, 'n'],
    [{ tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'tools[0]'],
    [
      {
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
      },
      'messages[0].content[0].image_url.url',
    ],
    [{ messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'f' } }] }] }, 'messages[0].content[0]'],
    [{ messages: [{ role: 'tool', tool_call_id: 'unknown', content: 'x' }] }, 'messages[0].tool_call_id'],
    [
      {
        messages: [
          { role: 'system', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] },
        ],
      },
      'messages[0].content[0]',
    ],
    [{ response_format: { type: 'grammar' } }, 'response_format'],
  ];
  for (const [fields, param] of cases) {
    assert.throws(
      () => bodyOf(ask(fields), null),
      (error: unknown) => error instanceof GatewayError && error.code === 'validation_failed' && error.param === param,
      param,
    );
  }
});

test('gemini: 400 INVALID_ARGUMENT and 404 pass through with the original body; 403, 429, 500, 503, 504 fail over', () => {
  const body = Buffer.from('{"error":{"code":400,"message":"Invalid JSON payload","status":"INVALID_ARGUMENT"}}');
  for (const status of [400, 404]) {
    const error = geminiAdapter.toError(status, body, 'application/json', fixtureContext(node));
    assert.equal(error.retryable, false);
    assert.equal(error.upstream?.passThrough, true);
    assert.equal(error.upstream?.body, body);
  }
  for (const status of [403, 429, 500, 503, 504]) {
    assert.equal(
      geminiAdapter.toError(status, Buffer.from('{}'), 'application/json', fixtureContext(node)).retryable,
      true,
      `status ${status}`,
    );
  }
});

test('gemini: the key goes in x-goog-api-key, never in the URL', () => {
  const call = geminiAdapter.toUpstream(ask({}), fixtureContext(node, { stream: true }));
  assert.equal(call.headers['x-goog-api-key'], 'node-secret');
  assert.equal(call.headers.authorization, undefined);
  assert.doesNotMatch(call.path, /node-secret|key=/);
});
