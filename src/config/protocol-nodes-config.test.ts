import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from './config-error.js';
import { parseConfigText } from './load-config.js';

const NODES = `
nodes:
  - { id: claude, provider: anthropic, api_key: k1 }
  - { id: gem, provider: gemini, api_key: k2 }
  - { id: sim-claude, provider: simulated, simulated: { protocol: anthropic } }
`;

function configError(text: string): ConfigError {
  try {
    parseConfigText(text, 'gw.yaml', {});
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('the configuration was accepted');
}

test('anthropic and gemini nodes: protocol from the provider, hosted base URLs by default, simulated nodes take a protocol', () => {
  const config = parseConfigText(
    `${NODES}models: [{ id: m, routes: [{ node: claude }, { node: gem }, { node: sim-claude }] }]`,
    'gw.yaml',
    {},
  );
  const [claude, gem, simulated] = config.nodes;
  assert.equal(claude?.protocol, 'anthropic');
  assert.equal(claude?.baseUrl, 'https://api.anthropic.com/v1');
  assert.equal(gem?.protocol, 'gemini');
  assert.equal(gem?.baseUrl, 'https://generativelanguage.googleapis.com/v1beta');
  assert.equal(simulated?.provider, 'simulated');
  assert.equal(simulated?.protocol, 'anthropic');
});

test('model reasoning settings: documented defaults, and per-model budgets, levels and style', () => {
  const config = parseConfigText(
    `${NODES}models:
  - { id: a, reasoning: { default_effort: low }, routes: [{ node: claude }] }
  - id: b
    default_max_tokens: 32000
    reasoning: { default_effort: high, style: level, levels: { medium: high } }
    routes: [{ node: gem }]
  - { id: c, reasoning: { default_effort: medium, budgets: { high: 30000 } }, routes: [{ node: claude }] }
`,
    'gw.yaml',
    {},
  );
  const [a, b, c] = config.models;
  assert.deepEqual(a?.reasoning, {
    defaultEffort: 'low',
    efforts: new Set(),
    style: 'budget',
    budgets: { none: 0, minimal: 1024, low: 1024, medium: 8192, high: 24576, xhigh: 32768, max: 65536 },
    levels: { low: 'low', medium: 'medium', high: 'high' },
  });
  assert.equal(b?.reasoning?.style, 'level');
  assert.deepEqual(b?.reasoning?.levels, { low: 'low', medium: 'high', high: 'high' });
  assert.equal(b?.defaultMaxTokens, 32000);
  assert.deepEqual(c?.reasoning?.budgets, {
    none: 0,
    minimal: 1024,
    low: 1024,
    medium: 8192,
    high: 30000,
    xhigh: 32768,
    max: 65536,
  });
});

const BAD: Array<[string, string, string, RegExp]> = [
  [
    'budgets that fall as effort rises',
    `${NODES}models: [{ id: m, reasoning: { default_effort: low, budgets: { low: 9000 } }, routes: [{ node: gem }] }]`,
    'models[0].reasoning.budgets',
    /must not fall as effort rises/,
  ],
  [
    "a budget under Anthropic's minimum",
    `${NODES}models: [{ id: m, reasoning: { default_effort: low, budgets: { low: 512 } }, routes: [{ node: gem }, { node: claude }] }]`,
    'models[0].reasoning.budgets.low',
    /below Anthropic's minimum thinking budget of 1024 \(node "claude" speaks anthropic\)/,
  ],
  [
    'a level Gemini does not know',
    `${NODES}models: [{ id: m, reasoning: { default_effort: low, style: level, levels: { high: max } }, routes: [{ node: gem }] }]`,
    'models[0].reasoning.levels.high',
    /not a Gemini thinking level/,
  ],
  [
    'a level Anthropic does not know',
    `${NODES}models: [{ id: m, reasoning: { default_effort: low, style: level, levels: { low: minimal } }, routes: [{ node: sim-claude }] }]`,
    'models[0].reasoning.levels.low',
    /not an Anthropic effort/,
  ],
  [
    'an unknown style',
    `${NODES}models: [{ id: m, reasoning: { default_effort: low, style: tokens }, routes: [{ node: gem }] }]`,
    'models[0].reasoning.style',
    /one of "budget", "level"/,
  ],
  [
    'an unknown simulated protocol',
    `nodes: [{ id: s, provider: simulated, simulated: { protocol: bedrock } }]\nmodels: [{ id: m, routes: [{ node: s }] }]`,
    'nodes[0].simulated.protocol',
    /one of "openai", "anthropic", "gemini"/,
  ],
  [
    'reasoning_param on an anthropic node',
    `nodes: [{ id: c, provider: anthropic, reasoning_param: reasoning }]\nmodels: [{ id: m, routes: [{ node: c }] }]`,
    'nodes[0].reasoning_param',
    /only to OpenAI-protocol nodes/,
  ],
  [
    'max_tokens_field on a gemini node',
    `nodes: [{ id: g, provider: gemini, max_tokens_field: max_completion_tokens }]\nmodels: [{ id: m, routes: [{ node: g }] }]`,
    'nodes[0].max_tokens_field',
    /only to OpenAI-protocol nodes/,
  ],
  [
    'an unknown max_tokens_field',
    `nodes: [{ id: o, provider: openai, base_url: "http://127.0.0.1:1/v1", max_tokens_field: max_new_tokens }]\nmodels: [{ id: m, routes: [{ node: o }] }]`,
    'nodes[0].max_tokens_field',
    /one of "max_tokens", "max_completion_tokens"/,
  ],
  [
    'apis on an anthropic node',
    `nodes: [{ id: c, provider: anthropic, apis: [chat, responses] }]\nmodels: [{ id: m, routes: [{ node: c }] }]`,
    'nodes[0].apis',
    /only to OpenAI-protocol nodes/,
  ],
  [
    'apis without chat',
    `nodes: [{ id: o, provider: openai, base_url: "http://127.0.0.1:1/v1", apis: [responses] }]\nmodels: [{ id: m, routes: [{ node: o }] }]`,
    'nodes[0].apis',
    /must include chat/,
  ],
];

for (const [name, text, path, problem] of BAD) {
  test(`rejects ${name}, naming the path`, () => {
    const error = configError(text);
    assert.equal(error.path, path);
    assert.match(error.problem, problem);
  });
}

test('a node serves natively: messages on every Anthropic node, responses on an OpenAI node that lists it', () => {
  const config = parseConfigText(
    `nodes:
  - { id: c, provider: anthropic }
  - { id: o, provider: openai, base_url: "http://127.0.0.1:1/v1" }
  - { id: r, provider: openai, base_url: "http://127.0.0.1:1/v1", apis: [chat, responses] }
  - { id: g, provider: gemini }
models: [{ id: m, routes: [{ node: c }, { node: o }, { node: r }, { node: g }] }]`,
    'test.yaml',
  );
  const native = Object.fromEntries(config.nodes.map((node) => [node.id, [...node.nativeApis]]));
  assert.deepEqual(native, { c: ['messages'], o: [], r: ['responses'], g: [] });
});
