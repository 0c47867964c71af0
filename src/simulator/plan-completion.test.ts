import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest } from './parse-chat-request.js';
import { DEFAULT_CONTROLS } from './generation-controls.js';
import { planCompletion, REASONING_TOKENS_BY_EFFORT } from './plan-completion.js';

function request(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'sim-model',
    messages: [{ role: 'user', content: 'Plan a short trip to the coast.' }],
    stream: false,
    includeUsage: false,
    maxTokens: undefined,
    reasoningEffort: undefined,
    ...overrides,
  };
}

test('answers are 12 to 48 tokens, chosen by the prompt, and end with stop', () => {
  const lengths = new Set<number>();
  for (let index = 0; index < 100; index++) {
    const plan = planCompletion(request({ messages: [{ role: 'user', content: `question ${index}` }] }));
    assert.ok(plan.contentTokens.length >= 12 && plan.contentTokens.length <= 48);
    assert.equal(plan.finishReason, 'stop');
    assert.deepEqual(plan.reasoningTokens, []);
    lengths.add(plan.contentTokens.length);
  }
  assert.ok(lengths.size > 10, 'lengths vary with the prompt');
});

test('the model name is part of the seed', () => {
  assert.notDeepEqual(
    planCompletion(request()).contentTokens,
    planCompletion(request({ model: 'other' })).contentTokens,
  );
});

test('reasoning length follows the effort and does not change the answer', () => {
  const plain = planCompletion(request());
  for (const effort of ['low', 'medium', 'high'] as const) {
    const plan = planCompletion(request({ reasoningEffort: effort }));
    assert.equal(plan.reasoningTokens.length, REASONING_TOKENS_BY_EFFORT[effort]);
    assert.deepEqual(plan.contentTokens, plain.contentTokens);
  }
  assert.deepEqual(REASONING_TOKENS_BY_EFFORT, {
    none: 0,
    minimal: 8,
    low: 16,
    medium: 48,
    high: 128,
    xhigh: 256,
    max: 512,
  });
  assert.deepEqual(planCompletion(request({ reasoningEffort: 'none' })).reasoningTokens, []);
});

test('the cap bounds reasoning plus answer', () => {
  const full = planCompletion(request({ reasoningEffort: 'low' }));
  const exact = planCompletion(request({ reasoningEffort: 'low', maxTokens: 16 + full.contentTokens.length }));
  assert.equal(exact.finishReason, 'stop');
  assert.deepEqual(exact.contentTokens, full.contentTokens);

  const short = planCompletion(request({ reasoningEffort: 'low', maxTokens: 20 }));
  assert.equal(short.finishReason, 'length');
  assert.equal(short.reasoningTokens.length, 16);
  assert.deepEqual(short.contentTokens, full.contentTokens.slice(0, 4));

  const inReasoning = planCompletion(request({ reasoningEffort: 'low', maxTokens: 10 }));
  assert.equal(inReasoning.finishReason, 'length');
  assert.deepEqual(inReasoning.reasoningTokens, full.reasoningTokens.slice(0, 10));
  assert.deepEqual(inReasoning.contentTokens, []);
});

test('a stop sequence inside a token cuts that token; the earliest of several wins', () => {
  const plain = planCompletion(request());
  const text = plain.contentTokens.join('');
  const long = plain.contentTokens.slice(1).find((token) => token.length >= 5) ?? '';
  const inside = long.slice(2, 4);
  assert.equal(inside.length, 2);
  const plan = planCompletion(request(), { ...DEFAULT_CONTROLS, stop: ['.', inside] });
  const at = Math.min(...['.', inside].map((sequence) => text.indexOf(sequence)).filter((index) => index >= 0));
  assert.equal(plan.contentTokens.join(''), text.slice(0, at));
  assert.equal(plan.finishReason, 'stop');
  assert.equal(plan.stopSequence, text.startsWith(inside, at) ? inside : '.');
});

test('tool arguments are always an object and fit the schema', () => {
  const tools = [
    { name: 'scalar', parameters: { type: 'string' } },
    {
      name: 'nested',
      parameters: {
        type: 'object',
        properties: {
          files: {
            type: 'array',
            items: { type: 'object', properties: { path: { type: 'string' }, mode: { const: 'r' } } },
          },
        },
        required: ['files'],
      },
    },
  ];
  for (const tool of tools) {
    const plan = planCompletion(request(), { ...DEFAULT_CONTROLS, tools: [tool], toolChoice: { mode: 'required' } });
    const call = plan.toolCalls[0];
    assert.equal(call?.name, tool.name);
    assert.equal(call?.argumentChunks.join(''), call?.arguments);
    const value = JSON.parse(call?.arguments ?? '') as unknown;
    assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value));
  }
  const nested = planCompletion(request(), {
    ...DEFAULT_CONTROLS,
    tools: [tools[1] as (typeof tools)[number]],
    toolChoice: { mode: 'required' },
  });
  const files = (
    JSON.parse(nested.toolCalls[0]?.arguments ?? '{}') as { files: Array<{ path: unknown; mode: unknown }> }
  ).files;
  assert.equal(files.length, 1);
  assert.equal(typeof files[0]?.path, 'string');
  assert.equal(files[0]?.mode, 'r');
});
