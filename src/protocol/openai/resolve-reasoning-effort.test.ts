import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelConfig } from '../../config/gateway-config.js';
import { resolveReasoningEffort } from './resolve-reasoning-effort.js';
import type { ChatRequest } from './chat-request-schema.js';

const base = {
  id: 'm',
  ownedBy: 'x',
  created: 0,
  contextLength: undefined,
  maxOutputTokens: undefined,
  defaultMaxTokens: undefined,
  pricing: undefined,
  routes: [],
};
const reasoner: ModelConfig = {
  ...base,
  reasoning: {
    defaultEffort: 'medium',
    style: 'budget',
    budgets: { low: 1, medium: 2, high: 3 },
    levels: { low: 'low', medium: 'medium', high: 'high' },
  },
};
const plain: ModelConfig = { ...base, reasoning: undefined };
const request = (fields: Partial<ChatRequest>): ChatRequest => ({
  model: 'm',
  messages: [{ role: 'user', content: 'x' }],
  ...fields,
});

test('either request form gives the same effort', () => {
  assert.equal(resolveReasoningEffort(request({ reasoning_effort: 'high' }), reasoner), 'high');
  assert.equal(resolveReasoningEffort(request({ reasoning: { effort: 'high' } }), reasoner), 'high');
});

test('absent or null, the model default applies', () => {
  assert.equal(resolveReasoningEffort(request({}), reasoner), 'medium');
  assert.equal(resolveReasoningEffort(request({ reasoning_effort: null }), reasoner), 'medium');
});

test('a model without reasoning gets none, whatever the client sent', () => {
  assert.equal(resolveReasoningEffort(request({ reasoning_effort: 'high' }), plain), undefined);
});
