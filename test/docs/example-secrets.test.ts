// Issue 28 finding 5: a gateway ran with the admin key printed in docs/keys-and-money.md.
// Every literal API key or admin key the README and docs/ print (in YAML, a Bearer header
// or an `admin_key` field) is refused by configuration validation, outside the built-in demo.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../src/config/config-error.js';
import { demoConfig } from '../../src/config/demo-config.js';
import { parseConfigText } from '../../src/config/load-config.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const MINIMAL = `
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
`;

/** Literal secrets in the docs: `admin_key: x`, `- key: x` / `{ key: x`, `Bearer x`, `"admin_key": "x"`. */
function documentedSecrets(): Set<string> {
  const files = [
    join(ROOT, 'README.md'),
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(ROOT, 'docs', name)),
  ];
  const patterns = [
    /\badmin_key"?\s*:\s*"?([A-Za-z0-9._~+/=-]{8,})/g,
    /(?:^\s*-\s*|\{\s*)key:\s*"?([A-Za-z0-9._~+/=-]{8,})/gm,
    /\bBearer\s+([A-Za-z0-9._~+/=-]{8,})/g,
  ];
  const found = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.add(match[1] as string);
  }
  return found;
}

function refusal(yaml: string): ConfigError | undefined {
  try {
    parseConfigText(yaml, 'gw.yaml', {});
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
}

test('every API key and admin key printed in the docs is refused by a configuration', () => {
  const secrets = documentedSecrets();
  assert.ok(
    secrets.has('sk-switchyard-demo-0000000000000000'),
    `the scan finds the demo key in the README (${[...secrets].join(', ')})`,
  );
  // Printed in earlier versions of docs/keys-and-money.md, so known as well.
  secrets.add('change-me-to-a-long-secret');
  for (const secret of secrets) {
    assert.ok(refusal(`${MINIMAL}admin_key: "${secret}"\n`), `admin_key ${secret} is refused`);
    assert.ok(refusal(`${MINIMAL}keys: [{ key: "${secret}" }]\n`), `key ${secret} is refused`);
  }
});

test('the built-in demo keeps its own public keys', () => {
  const demo = demoConfig({});
  assert.equal(demo.adminKey, 'switchyard-demo-admin-0000000000');
  assert.equal(demo.keys[0]?.key, 'sk-switchyard-demo-0000000000000000');
});
