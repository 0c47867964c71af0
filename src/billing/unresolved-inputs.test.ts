import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGatewayError } from '../errors/gateway-error.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { markLeftOut, reservedPromptTokens, unresolvedInputsOf } from './unresolved-inputs.js';
import { modelConfig } from '../../test/support/model-config.js';

const model = modelConfig;

function request(content: unknown, unresolved = 0, text: string[] = []): ChatRequest {
  const chat = { model: 'm', messages: [{ role: 'user', content }] } as ChatRequest;
  markLeftOut(chat, { unresolved, text });
  return chat;
}

/** A token per character: the arithmetic shows. */
const count = (text: string) => text.length;

test('unresolved inputs: those a front door marked, and files by id (not files carried as data); a spread copy keeps the mark', () => {
  const byId = { type: 'file', file: { file_id: 'file-1' } };
  const carried = { type: 'file', file: { file_data: 'data:application/pdf;base64,AAAA', file_id: 'file-1' } };
  assert.equal(unresolvedInputsOf(request('text')), 0);
  assert.equal(unresolvedInputsOf(request([byId, carried, { type: 'text', text: 'x' }])), 1);
  assert.equal(unresolvedInputsOf(request([byId], 2)), 3);
  assert.equal(unresolvedInputsOf({ ...request('x', 2) }), 2);
  assert.equal(JSON.stringify(request('x', 2, ['left out'])).includes('left'), false, 'the mark is never serialized');
});

test('the reserved prompt: the count when everything is seen; else the context, or unresolved_input_tokens each within it; neither is a 400', () => {
  const two = request('x', 2);
  assert.equal(reservedPromptTokens(request('x'), model({}), 40, count), 40);
  assert.equal(reservedPromptTokens(two, model({ contextLength: 128_000 }), 40, count), 128_000);
  assert.equal(
    reservedPromptTokens(two, model({ contextLength: 200_000, unresolvedInputTokens: 50_000 }), 40, count),
    100_040,
  );
  assert.equal(
    reservedPromptTokens(two, model({ contextLength: 60_000, unresolvedInputTokens: 50_000 }), 40, count),
    60_000,
  );
  assert.equal(reservedPromptTokens(two, model({ unresolvedInputTokens: 50_000 }), 40, count), 100_040);
  assert.equal(reservedPromptTokens(two, model({ contextLength: 1000 }), 5000, count), 5000, 'never below the count');
  assert.throws(
    () => reservedPromptTokens(two, model({}), 40, count),
    (error: unknown) =>
      isGatewayError(error) && error.status === 400 && /context_length or unresolved_input_tokens/.test(error.message),
  );
});

test('text the front door left out is counted on top of the request, and inside the context bound', () => {
  assert.equal(reservedPromptTokens(request('x', 0, ['abcd', 'ef']), model({}), 40, count), 46);
  assert.equal(reservedPromptTokens(request('x', 1, ['abcd']), model({ unresolvedInputTokens: 100 }), 40, count), 144);
  assert.equal(reservedPromptTokens(request('x', 1, ['abcd']), model({ contextLength: 120 }), 40, count), 120);
});
