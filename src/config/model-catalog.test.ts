import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from './config-error.js';
import { demoConfig } from './demo-config.js';
import { parseConfigText } from './load-config.js';
import { globMatches, ModelCatalog } from './model-catalog.js';

function catalogOf(models: string): ModelCatalog {
  const config = parseConfigText(
    `
nodes:
  - { id: a, provider: openai, base_url: "http://127.0.0.1:9/v1/" }
models:
${models}
`,
    'gw.yaml',
    {},
  );
  return new ModelCatalog(config.models);
}

function configError(models: string): ConfigError {
  try {
    catalogOf(models);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('the configuration was accepted');
}

const served = (catalog: ModelCatalog, id: string) => catalog.resolve(id)?.id;

test('a model’s own id wins over any alias, an exact alias over a pattern, the longest pattern over a shorter one', () => {
  const catalog = catalogOf(`
  - { id: claude-sonnet-4-5, routes: [{ node: a }] }
  - { id: big, aliases: ["claude-*", "gpt-5"], routes: [{ node: a }] }
  - { id: small, aliases: ["claude-*haiku*", "claude-opus-4-1"], routes: [{ node: a }] }
  - { id: anything, aliases: ["*"], routes: [{ node: a }] }
`);
  assert.equal(served(catalog, 'claude-sonnet-4-5'), 'claude-sonnet-4-5', 'own id beats claude-* and *');
  assert.equal(served(catalog, 'claude-opus-4-1'), 'small', 'exact alias beats claude-*');
  assert.equal(served(catalog, 'claude-haiku-4-5-20251001'), 'small', 'the longer pattern');
  assert.equal(served(catalog, 'claude-3-5-haiku-20241022'), 'small');
  assert.equal(served(catalog, 'claude-opus-4-5'), 'big');
  assert.equal(served(catalog, 'gpt-5'), 'big');
  assert.equal(served(catalog, 'gpt-5.1-codex'), 'anything', 'gpt-5 is exact, not a prefix');
  assert.equal(served(catalog, 'llama'), 'anything', 'the catch-all');
  // Operators' references are by own id only.
  assert.equal(catalog.get('gpt-5'), undefined);
  assert.equal(catalog.get('big')?.id, 'big');
  assert.deepEqual(
    [...catalog.values()].map((model) => model.id),
    ['claude-sonnet-4-5', 'big', 'small', 'anything'],
  );
});

test('without a catch-all an unknown id names no model; patterns match whole ids', () => {
  const catalog = catalogOf(`
  - { id: m, aliases: ["gpt-*-mini", "o*"], routes: [{ node: a }] }
`);
  assert.equal(served(catalog, 'gpt-4o-mini'), 'm');
  assert.equal(served(catalog, 'gpt-mini'), undefined, 'gpt- and -mini may not overlap');
  assert.equal(served(catalog, 'gpt-4o-mini-2024'), undefined, 'the suffix must end the id');
  assert.equal(served(catalog, 'o3'), 'm');
  assert.equal(served(catalog, 'claude'), undefined);
});

test('patterns of equal length: the model listed first', () => {
  const catalog = catalogOf(`
  - { id: first, aliases: ["claude-*"], routes: [{ node: a }] }
  - { id: second, aliases: ["*-sonnet"], routes: [{ node: a }] }
`);
  assert.equal(served(catalog, 'claude-sonnet'), 'first');
});

test('globMatches: pieces in order, prefix and suffix anchored', () => {
  assert.equal(globMatches(['a', 'b', 'c'], 'a-b-c'), true);
  assert.equal(globMatches(['a', 'b', 'c'], 'abc'), true);
  assert.equal(globMatches(['a', 'b', 'c'], 'a-c-b'), false);
  assert.equal(globMatches(['', ''], ''), true);
  assert.equal(globMatches(['ab', 'ba'], 'aba'), false, 'prefix and suffix may not share characters');
  assert.equal(globMatches(['x', 'bb', 'y'], 'xbby'), true);
  assert.equal(globMatches(['x', 'bb', 'y'], 'xby'), false);
});

test('two models claiming one alias, or an alias that is another model’s id, is a configuration error naming both', () => {
  const exact = configError(`
  - { id: one, aliases: ["shared"], routes: [{ node: a }] }
  - { id: two, aliases: ["shared"], routes: [{ node: a }] }
`);
  assert.equal(exact.path, 'models[1].aliases[0]');
  assert.match(exact.problem, /"shared" is claimed by both model "one" and model "two"/);

  const pattern = configError(`
  - { id: one, aliases: ["claude-*"], routes: [{ node: a }] }
  - { id: two, aliases: ["x", "claude-*"], routes: [{ node: a }] }
`);
  assert.equal(pattern.path, 'models[1].aliases[1]');
  assert.match(pattern.problem, /"claude-\*" is claimed by both model "one" and model "two"/);

  const otherId = configError(`
  - { id: one, routes: [{ node: a }] }
  - { id: two, aliases: ["one"], routes: [{ node: a }] }
`);
  assert.match(otherId.problem, /alias "one" of model "two" is the id of model "one"/);

  const ownId = configError(`
  - { id: one, aliases: ["one"], routes: [{ node: a }] }
`);
  assert.match(ownId.problem, /is the model's own id/);

  // Listed before the model whose id it is: still found.
  const earlier = configError(`
  - { id: two, aliases: ["one"], routes: [{ node: a }] }
  - { id: one, routes: [{ node: a }] }
`);
  assert.match(earlier.problem, /alias "one" of model "two" is the id of model "one"/);
});

test('an alias list is bounded and has no repeats (schema)', () => {
  const repeated = configError(`
  - { id: one, aliases: ["x", "x"], routes: [{ node: a }] }
`);
  assert.match(repeated.message, /aliases/);
  const many = Array.from({ length: 65 }, (_, index) => `"a${index}"`).join(', ');
  const tooMany = configError(`
  - { id: one, aliases: [${many}], routes: [{ node: a }] }
`);
  assert.match(tooMany.message, /aliases/);
});

test('the demo answers coding agents’ own model ids', () => {
  const catalog = new ModelCatalog(demoConfig({}).models);
  assert.equal(served(catalog, 'claude-sonnet-4-5-20250929'), 'demo-reasoner');
  assert.equal(served(catalog, 'claude-opus-4-1-20250805'), 'demo-reasoner');
  assert.equal(served(catalog, 'claude-haiku-4-5-20251001'), 'demo-chat');
  assert.equal(served(catalog, 'claude-3-5-haiku-20241022'), 'demo-chat');
  assert.equal(served(catalog, 'gpt-5-codex'), 'demo-reasoner');
  assert.equal(served(catalog, 'gpt-5.1-codex-max'), 'demo-reasoner');
  assert.equal(served(catalog, 'demo-chat'), 'demo-chat');
  assert.equal(served(catalog, 'llama-3'), undefined);
});
