import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from './config-error.js';
import { demoConfig } from './demo-config.js';
import { parseConfigText } from './load-config.js';

const MINIMAL = `
nodes:
  - { id: a, provider: openai, base_url: "http://127.0.0.1:9/v1/" }
models:
  - { id: m, routes: [{ node: a, model: upstream-m }] }
`;

function configError(text: string, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    parseConfigText(text, 'gw.yaml', env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('the configuration was accepted');
}

test('applies the documented defaults', () => {
  const config = parseConfigText(MINIMAL, 'gw.yaml', {});
  assert.deepEqual(config.listen, { host: '127.0.0.1', port: 8080 });
  assert.equal(config.failover.maxAttempts, 3);
  assert.deepEqual(config.timeouts, {
    connectMs: 5000,
    firstByteMs: 120000,
    idleMs: 60000,
    totalMs: 600000,
    minTokensPerSecond: 10,
  });
  assert.equal(config.http.bodyLimitBytes, 4 * 1024 * 1024);
  assert.equal(config.http.sseKeepaliveMs, 15000);
  assert.equal(config.http.maxBodyBytesInFlightPerKey, 16 * 1024 * 1024);
  assert.equal(config.http.maxBodyBytesInFlight, 256 * 1024 * 1024);
  assert.equal(config.http.maxDrainBytes, 64 * 1024 * 1024);
  assert.equal(config.http.drainTimeoutMs, 30_000);
  assert.equal(config.nodes[0]?.baseUrl, 'http://127.0.0.1:9/v1', 'trailing slash removed');
  assert.deepEqual(config.models[0]?.routes, [{ nodeId: 'a', upstreamModel: 'upstream-m', weight: 1, priority: 0 }]);
  assert.equal(config.models[0]?.reasoning, undefined);
});

test('node time-outs inherit the global ones and may override them', () => {
  const config = parseConfigText(
    `timeouts: { connect_ms: 100, total_ms: 9000, min_tokens_per_second: 25 }
nodes:
  - { id: a, provider: openai, base_url: "http://x/v1", timeouts: { connect_ms: 50 } }
models: [{ id: m, routes: [{ node: a }] }]`,
    'gw.yaml',
    {},
  );
  assert.deepEqual(config.nodes[0]?.timeouts, {
    connectMs: 50,
    firstByteMs: 120000,
    idleMs: 60000,
    totalMs: 9000,
    minTokensPerSecond: 25,
  });
});

test('interpolates ${VAR} and ${VAR:-default}, with numbers coerced where the schema wants them', () => {
  const config = parseConfigText(
    `listen: { port: "\${PORT}" }
nodes:
  - { id: a, provider: openai, base_url: "\${BASE:-http://fallback/v1}", api_key: "\${NODE_KEY}" }
models: [{ id: m, routes: [{ node: a }] }]
keys: [{ key: "\${CLIENT_KEY}" }]`,
    'gw.yaml',
    { PORT: '9090', NODE_KEY: 'secret-node-key', CLIENT_KEY: '1234567890123456' },
  );
  assert.equal(config.listen.port, 9090);
  assert.equal(config.nodes[0]?.baseUrl, 'http://fallback/v1');
  assert.equal(config.nodes[0]?.apiKey, 'secret-node-key');
  assert.equal(config.keys[0]?.key, '1234567890123456', 'a numeric-looking key stays a string');
});

const BAD: Array<[string, string, string, RegExp]> = [
  [
    'an unset variable',
    MINIMAL.replace('http://127.0.0.1:9/v1/', '${MISSING_URL}'),
    'nodes[0].base_url',
    /MISSING_URL is not set/,
  ],
  ['a YAML syntax error', 'nodes: [\n  { id: a', 'line', /YAML syntax/],
  [
    'an empty section',
    'nodes: []\nmodels: [{ id: m, routes: [{ node: a }] }]\n',
    'nodes',
    /at least 1|must not be empty/,
  ],
  ['a wrong type', MINIMAL + 'listen: { port: many }\n', 'listen.port', /must be an integer/],
  [
    'an unknown provider',
    MINIMAL.replace('provider: openai', 'provider: carrier-pigeon'),
    'nodes[0].provider',
    /one of "openai", "anthropic", "gemini", "simulated"/,
  ],
  ['an unknown field', MINIMAL + 'colour: blue\n', 'colour', /not a known field/],
  [
    'a misspelled required section',
    MINIMAL.replace('models:', 'modles:'),
    'modles',
    /^is not a known field; did you mean "models"\?$/,
  ],
  [
    'a misspelled required field',
    MINIMAL.replace('routes:', 'rotues:'),
    'models[0].rotues',
    /^is not a known field; did you mean "routes"\?$/,
  ],
  [
    'a misspelled optional field',
    MINIMAL + 'listen: { prot: 8081 }\n',
    'listen.prot',
    /^is not a known field; did you mean "port"\?$/,
  ],
  [
    'a route to an unknown node',
    MINIMAL.replace('node: a,', 'node: b,'),
    'models[0].routes[0].node',
    /unknown node "b"/,
  ],
  [
    'a duplicate node id',
    MINIMAL.replace('nodes:\n', 'nodes:\n  - { id: a, provider: openai, base_url: "http://y/v1" }\n'),
    'nodes[1].id',
    /duplicate id "a"/,
  ],
  [
    'an openai node without base_url',
    MINIMAL.replace(', base_url: "http://127.0.0.1:9/v1/"', ''),
    'nodes[0].base_url',
    /required for provider openai/,
  ],
  [
    'a negative price',
    MINIMAL.replace('{ id: m,', '{ id: m, pricing: { input: -1, output: 1 },'),
    'models[0].pricing.input',
    /must be >= 0/,
  ],
  [
    'an unknown default effort',
    MINIMAL.replace('{ id: m,', '{ id: m, reasoning: { default_effort: extreme },'),
    'models[0].reasoning.default_effort',
    /one of "none", "minimal", "low", "medium", "high", "xhigh", "max"/,
  ],
  [
    'a key of an unknown account',
    MINIMAL + 'keys: [{ key: sk-abcdefgh-0123456789, account: nobody }]\n',
    'keys[0].account',
    /unknown account "nobody"/,
  ],
  [
    "the documentation's example admin key",
    MINIMAL + 'admin_key: change-me-to-a-long-secret\n',
    'admin_key',
    /example printed in the documentation/,
  ],
  [
    "the demo's public admin key outside the demo",
    MINIMAL + 'admin_key: switchyard-demo-admin-0000000000\n',
    'admin_key',
    /example printed in the documentation/,
  ],
  [
    "the demo's public API key outside the demo",
    MINIMAL + 'keys: [{ key: sk-switchyard-demo-0000000000000000 }]\n',
    'keys[0].key',
    /example printed in the documentation/,
  ],
  ['an API key shorter than 16 characters', MINIMAL + 'keys: [{ key: sk-abcdefgh }]\n', 'keys[0].key', /16/],
  ['an admin key shorter than 24 characters', MINIMAL + 'admin_key: admin-0123456789abcd\n', 'admin_key', /24/],
  [
    'a per-key body budget below the body limit',
    MINIMAL + 'http: { body_limit_bytes: 33554432 }\n',
    'http.max_body_bytes_in_flight_per_key',
    /at least http\.body_limit_bytes \(33554432\)/,
  ],
  [
    'a total body budget below the per-key one',
    MINIMAL + 'http: { max_body_bytes_in_flight: 1048576 }\n',
    'http.max_body_bytes_in_flight',
    /at least http\.max_body_bytes_in_flight_per_key/,
  ],
];

for (const [name, text, path, problem] of BAD) {
  test(`names the file, the path and the problem for ${name}`, () => {
    const error = configError(text);
    assert.equal(error.source, 'gw.yaml');
    assert.ok(error.path.startsWith(path), `path ${error.path} should start with ${path}`);
    assert.match(error.problem, problem);
    assert.match(error.message, /^invalid configuration gw\.yaml/);
    assert.doesNotMatch(error.message, /\n/);
  });
}

test('a duplicated key is reported without echoing the key', () => {
  const error = configError(MINIMAL + 'keys: [{ key: sk-very-secret-1 }, { key: sk-very-secret-1 }]\n');
  assert.equal(error.path, 'keys[1].key');
  assert.doesNotMatch(error.message, /very-secret/);
});

test('the built-in demo has a reasoning model with default medium and a plain model on a simulated node', () => {
  const config = demoConfig({});
  assert.equal(config.nodes[0]?.provider, 'simulated');
  const reasoner = config.models.find((model) => model.reasoning !== undefined);
  const plain = config.models.find((model) => model.reasoning === undefined);
  assert.equal(reasoner?.reasoning?.defaultEffort, 'medium');
  assert.ok(plain);
  assert.equal(config.listen.host, '127.0.0.1');
});
