import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGatewayError } from '../errors/gateway-error.js';
import type { ModelConfig } from '../config/gateway-config.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { reservedPromptTokens, unresolvedInputsOf, type LeftOut } from './unresolved-inputs.js';
import { modelConfig } from '../../test/support/model-config.js';

const model = modelConfig;

/** A request as a front door hands it: the chat form, and what it left out beside it. */
interface Handed {
  readonly chat: ChatRequest;
  readonly leftOut: LeftOut;
}

function request(content: unknown, unresolved = 0, text: string[] = []): Handed {
  return { chat: { model: 'm', messages: [{ role: 'user', content }] } as ChatRequest, leftOut: { unresolved, text } };
}

const unresolvedOf = (handed: Handed) => unresolvedInputsOf(handed.chat, handed.leftOut);
const reservedOf = (handed: Handed, ...rest: [ModelConfig, number, (text: string) => number]) =>
  reservedPromptTokens(handed.chat, ...rest, handed.leftOut);

/** A token per character: the arithmetic shows. */
const count = (text: string) => text.length;

test('unresolved inputs: those a front door left out, and files by id (not files carried as data); a spread copy keeps them', () => {
  const byId = { type: 'file', file: { file_id: 'file-1' } };
  const carried = { type: 'file', file: { file_data: 'data:application/pdf;base64,AAAA', file_id: 'file-1' } };
  assert.equal(unresolvedOf(request('text')), 0);
  assert.equal(unresolvedOf(request([byId, carried, { type: 'text', text: 'x' }])), 1);
  assert.equal(unresolvedOf(request([byId], 2)), 3);
  assert.equal(unresolvedOf({ ...request('x', 2) }), 2);
  assert.equal(
    JSON.stringify(request('x', 2, ['left out']).chat).includes('left'),
    false,
    'never in the chat form a node is sent',
  );
});

test('the reserved prompt: the count when everything is seen; else the context, or unresolved_input_tokens each within it; neither is a 400', () => {
  const two = request('x', 2);
  assert.equal(reservedOf(request('x'), model({}), 40, count), 40);
  assert.equal(reservedOf(two, model({ contextLength: 128_000 }), 40, count), 128_000);
  assert.equal(reservedOf(two, model({ contextLength: 200_000, unresolvedInputTokens: 50_000 }), 40, count), 100_040);
  assert.equal(reservedOf(two, model({ contextLength: 60_000, unresolvedInputTokens: 50_000 }), 40, count), 60_000);
  assert.equal(reservedOf(two, model({ unresolvedInputTokens: 50_000 }), 40, count), 100_040);
  assert.equal(reservedOf(two, model({ contextLength: 1000 }), 5000, count), 5000, 'never below the count');
  assert.throws(
    () => reservedOf(two, model({}), 40, count),
    (error: unknown) =>
      isGatewayError(error) && error.status === 400 && /context_length or unresolved_input_tokens/.test(error.message),
  );
});

test('text the front door left out is counted on top of the request, and inside the context bound', () => {
  assert.equal(reservedOf(request('x', 0, ['abcd', 'ef']), model({}), 40, count), 46);
  assert.equal(reservedOf(request('x', 1, ['abcd']), model({ unresolvedInputTokens: 100 }), 40, count), 144);
  assert.equal(reservedOf(request('x', 1, ['abcd']), model({ contextLength: 120 }), 40, count), 120);
});
