import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelConfig } from '../config/gateway-config.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { DEFAULT_OUTPUT_RESERVE, outputCapOf } from './estimate-request.js';

const base = { id: 'm', ownedBy: 'x', created: 0, contextLength: undefined, maxOutputTokens: undefined, defaultMaxTokens: undefined, reasoning: undefined, pricing: undefined, routes: [] } as ModelConfig;
const ask = (fields: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'm', messages: [], ...fields });

test('outputCapOf: client cap or default_max_tokens clamped to max_output_tokens, else max_output_tokens, else the context, else the default reserve', () => {
  const model = { ...base, maxOutputTokens: 300, defaultMaxTokens: 120 };
  assert.deepEqual(outputCapOf(ask(), model, 10), { tokens: 120, contextBound: false });
  assert.deepEqual(outputCapOf(ask({ max_tokens: 5000 }), model, 10), { tokens: 300, contextBound: false });
  assert.deepEqual(outputCapOf(ask({ max_completion_tokens: 50, max_tokens: 5000 }), model, 10), { tokens: 50, contextBound: false });
  assert.deepEqual(outputCapOf(ask({ n: 3 }), { ...base, maxOutputTokens: 300 }, 10), { tokens: 300, contextBound: false }, 'per choice');
  assert.deepEqual(outputCapOf(ask(), { ...base, contextLength: 1000 }, 10), { tokens: 990, contextBound: true });
  assert.deepEqual(outputCapOf(ask({ max_tokens: 5000 }), { ...base, contextLength: 1000 }, 10), { tokens: 990, contextBound: false });
  assert.deepEqual(outputCapOf(ask(), base, 10), { tokens: DEFAULT_OUTPUT_RESERVE, contextBound: false });
});
