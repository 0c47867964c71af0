import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureContext, fixtureNode } from '../../test/support/adapter-fixtures.js';
import { outputCapOf } from '../billing/estimate-request.js';
import type { ModelConfig, ModelReasoningSettings, NodeConfig, ReasoningEffort } from '../config/gateway-config.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { anthropicAdapter } from './anthropic/adapter.js';
import { geminiAdapter } from './gemini/adapter.js';
import { openaiAdapter } from './openai/adapter.js';
import type { ProviderAdapter } from './types.js';

// The mapping table of docs/reasoning.md, row by row, against the adapters: what each effort
// (and `reasoning.max_tokens`) becomes in the body sent to each protocol's node, with the
// output cap the reservation is priced on (no client cap: budget + 4096 answer tokens).

const BUDGETS = { none: 0, minimal: 1024, low: 1024, medium: 8192, high: 24576, xhigh: 32768, max: 65536 };
const EVERY_EFFORT = new Set<ReasoningEffort>(['none', 'minimal', 'xhigh', 'max']);

function model(style: 'budget' | 'level'): ModelConfig {
  const reasoning: ModelReasoningSettings = {
    defaultEffort: 'medium',
    efforts: EVERY_EFFORT,
    style,
    budgets: BUDGETS,
    levels: { low: 'low', medium: 'medium', high: 'high' },
  };
  return {
    id: 'client-model',
    ownedBy: 'test',
    created: 0,
    contextLength: undefined,
    maxOutputTokens: undefined,
    defaultMaxTokens: undefined,
    reasoning,
    pricing: undefined,
    routes: [],
  };
}

/** The node body for one effort, with the output cap the gateway computes for the request. */
function sent(
  adapter: ProviderAdapter,
  style: 'budget' | 'level',
  effort: ReasoningEffort,
  extra: Partial<ChatRequest> = {},
  node: NodeConfig = fixtureNode(adapter.protocol as NodeConfig['protocol']),
): Record<string, unknown> {
  const request = {
    model: 'client-model',
    messages: [{ role: 'user' as const, content: 'Plan a three-step proof.' }],
    reasoning_effort: effort,
    ...extra,
  } as ChatRequest;
  const configured = model(style);
  const context = fixtureContext(
    node,
    { model: configured, effort, outputCap: outputCapOf(request, configured, 0, effort) },
    request,
  );
  return JSON.parse(adapter.toUpstream(request, context).body) as Record<string, unknown>;
}

const EFFORTS: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

test('Anthropic, style budget: thinking.budget_tokens per effort under a max_tokens of budget + 4096; none: no thinking', () => {
  const table = EFFORTS.map((effort) => {
    const body = sent(anthropicAdapter, 'budget', effort);
    return [effort, body.max_tokens, body.thinking ?? null];
  });
  assert.deepEqual(table, [
    ['none', 4096, null],
    ['minimal', 5120, { type: 'enabled', budget_tokens: 1024 }],
    ['low', 5120, { type: 'enabled', budget_tokens: 1024 }],
    ['medium', 12288, { type: 'enabled', budget_tokens: 8192 }],
    ['high', 28672, { type: 'enabled', budget_tokens: 24576 }],
    ['xhigh', 36864, { type: 'enabled', budget_tokens: 32768 }],
    ['max', 69632, { type: 'enabled', budget_tokens: 65536 }],
  ]);
});

test('Anthropic, style budget: reasoning.max_tokens wins over the effort, raised to 1024, 0 is off; a client cap keeps the budget under it', () => {
  const cases: Array<[Partial<ChatRequest>, unknown, unknown]> = [
    [{ reasoning: { max_tokens: 3000 } }, 7096, { type: 'enabled', budget_tokens: 3000 }],
    [{ reasoning: { max_tokens: 500 } }, 4596, { type: 'enabled', budget_tokens: 1024 }],
    [{ reasoning: { max_tokens: 0 } }, 4096, null],
    [{ max_tokens: 2000 }, 2000, { type: 'enabled', budget_tokens: 1999 }],
    [{ max_tokens: 1000 }, 1000, null],
  ];
  for (const [extra, maxTokens, thinking] of cases) {
    const body = sent(anthropicAdapter, 'budget', 'high', extra);
    assert.deepEqual([body.max_tokens, body.thinking ?? null], [maxTokens, thinking], JSON.stringify(extra));
  }
});

test('Anthropic, style level: adaptive thinking with output_config.effort; minimal as low; none: no thinking', () => {
  const table = EFFORTS.map((effort) => {
    const body = sent(anthropicAdapter, 'level', effort);
    return [effort, body.thinking ?? null, (body.output_config as { effort?: string } | undefined)?.effort ?? null];
  });
  assert.deepEqual(table, [
    ['none', null, null],
    ['minimal', { type: 'adaptive' }, 'low'],
    ['low', { type: 'adaptive' }, 'low'],
    ['medium', { type: 'adaptive' }, 'medium'],
    ['high', { type: 'adaptive' }, 'high'],
    ['xhigh', { type: 'adaptive' }, 'xhigh'],
    ['max', { type: 'adaptive' }, 'max'],
  ]);
});

test('Gemini: thinkingBudget (style budget) or thinkingLevel (style level) per effort; none: budget 0 or the lowest level, no thoughts', () => {
  const thinking = (style: 'budget' | 'level', effort: ReasoningEffort, extra: Partial<ChatRequest> = {}) => {
    const generation = sent(geminiAdapter, style, effort, extra).generationConfig as Record<string, unknown>;
    return [generation.maxOutputTokens, generation.thinkingConfig];
  };
  assert.deepEqual(
    EFFORTS.map((effort) => thinking('budget', effort)),
    [
      [4096, { thinkingBudget: 0, includeThoughts: false }],
      [5120, { thinkingBudget: 1024, includeThoughts: true }],
      [5120, { thinkingBudget: 1024, includeThoughts: true }],
      [12288, { thinkingBudget: 8192, includeThoughts: true }],
      [28672, { thinkingBudget: 24576, includeThoughts: true }],
      [36864, { thinkingBudget: 32768, includeThoughts: true }],
      [69632, { thinkingBudget: 65536, includeThoughts: true }],
    ],
  );
  assert.deepEqual(thinking('budget', 'low', { reasoning: { max_tokens: 2048 } }), [
    6144,
    { thinkingBudget: 2048, includeThoughts: true },
  ]);
  assert.deepEqual(
    EFFORTS.map((effort) => thinking('level', effort)[1]),
    [
      { thinkingLevel: 'MINIMAL', includeThoughts: false },
      { thinkingLevel: 'MINIMAL', includeThoughts: true },
      { thinkingLevel: 'LOW', includeThoughts: true },
      { thinkingLevel: 'MEDIUM', includeThoughts: true },
      { thinkingLevel: 'HIGH', includeThoughts: true },
      { thinkingLevel: 'HIGH', includeThoughts: true },
      { thinkingLevel: 'HIGH', includeThoughts: true },
    ],
  );
});

test('OpenAI protocol: the effort word as it came; OpenRouter-style nodes get the reasoning object, max_tokens standing for the effort, exclude passed on', () => {
  for (const effort of EFFORTS) {
    const body = sent(openaiAdapter, 'budget', effort);
    assert.equal(body.reasoning_effort, effort);
    assert.equal(body.reasoning, undefined);
  }
  const openRouter = { ...fixtureNode('openai'), reasoningParam: 'reasoning' as const };
  assert.deepEqual(sent(openaiAdapter, 'budget', 'xhigh', {}, openRouter).reasoning, { effort: 'xhigh' });
  const withBudget = sent(
    openaiAdapter,
    'budget',
    'high',
    { reasoning_effort: undefined, reasoning: { max_tokens: 3000, exclude: true, effort: null } },
    openRouter,
  );
  assert.deepEqual(withBudget.reasoning, { max_tokens: 3000, exclude: true });
  assert.equal(withBudget.reasoning_effort, undefined);
  assert.deepEqual(sent(openaiAdapter, 'budget', 'low', { reasoning: { exclude: true } }, openRouter).reasoning, {
    exclude: true,
    effort: 'low',
  });
  // Without a client cap, the node is sent the same cap: room for the budget and an answer.
  assert.equal(sent(openaiAdapter, 'budget', 'high').max_tokens, 28672);
});
