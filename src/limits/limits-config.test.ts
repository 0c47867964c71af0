import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../config/config-error.js';
import { parseConfigText } from '../config/load-config.js';

const NODES = `
nodes:
  - { id: a, provider: openai, base_url: "http://127.0.0.1:9/v1" }
models:
  - { id: m, routes: [{ node: a }] }
`;

test('rate limits default to 600 RPM per key and 1200 RPM per IP, no Redis, no trusted proxies', () => {
  const config = parseConfigText(NODES, 'gw.yaml', {});
  assert.deepEqual(config.limits, {
    key: { rpm: 600, rps: undefined, tpm: undefined },
    account: { rpm: undefined, rps: undefined, tpm: undefined },
    ip: { rpm: 1200, rps: undefined, tpm: undefined },
    authFailuresPerMinute: 30,
    countTokensPerMinute: 4_000_000,
  });
  assert.equal(config.redis, undefined);
  assert.deepEqual(config.trustedProxies, []);
});

test('global limits, per-account and per-key overrides, redis and trusted proxies resolve', () => {
  const config = parseConfigText(
    `redis: redis://127.0.0.1:6379/2
trusted_proxies: [10.0.0.0/8, "::1"]
limits:
  key: { rps: 5, tpm: 100000 }
  account: { rpm: 3000 }
  ip: { rpm: 2000, rps: 50 }
  auth_failures_per_minute: 10
accounts:
  - { id: acme, limits: { rpm: 100, tpm: 50000 } }
keys:
  - { key: sk-test-0001-0123456789, account: acme, limits: { rpm: 120 } }
${NODES}`,
    'gw.yaml',
    {},
  );
  assert.deepEqual(config.limits, {
    key: { rpm: 600, rps: 5, tpm: 100000 },
    account: { rpm: 3000, rps: undefined, tpm: undefined },
    ip: { rpm: 2000, rps: 50, tpm: undefined },
    authFailuresPerMinute: 10,
    countTokensPerMinute: 4_000_000,
  });
  assert.deepEqual(config.accounts[0]?.limits, { rpm: 100, rps: undefined, tpm: 50000 });
  assert.deepEqual(config.keys[0]?.limits, { rpm: 120, rps: undefined, tpm: undefined });
  assert.equal(config.redis, 'redis://127.0.0.1:6379/2');
  assert.deepEqual(config.trustedProxies, ['10.0.0.0/8', '::1']);
});

function problem(yaml: string): string {
  try {
    parseConfigText(`${yaml}\n${NODES}`, 'gw.yaml', {});
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail('accepted');
}

test('bad limit values, proxies and URLs are refused with the path', () => {
  assert.match(problem('trusted_proxies: [10.0.0.0/40]'), /trusted_proxies\[0\].*prefix length/);
  assert.match(problem('trusted_proxies: [10.0.0.0/8, proxy.local]'), /trusted_proxies\[1\].*not an IP address/);
  assert.match(problem('limits: { key: { rpm: 0 } }'), /at limits\.key\.rpm: must be >= 1/);
  assert.match(problem('limits: { key: { burst: 3 } }'), /at limits\.key\.burst: is not a known field/);
  assert.match(problem('accounts: [{ id: a, limits: { rps: -1 } }]'), /at accounts\[0\]\.limits\.rps: must be >= 1/);
  assert.match(problem('redis: localhost:6379'), /at redis:/);
});
