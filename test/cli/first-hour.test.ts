import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, scratchDirectory, startGatewayProcess, stopGatewayProcess } from '../support/gateway-process.js';

// Issue 33 item 5: small frictions of the first hour on the command line.

const NODES_AND_MODELS = 'nodes:\n  - { id: a, provider: simulated }\nmodels:\n  - { id: m, routes: [{ node: a }] }\n';

function configFile(text: string): string {
  const file = join(scratchDirectory('first-hour'), 'switchyard.yaml');
  writeFileSync(file, text);
  return file;
}

test('an empty `keys:` is refused with the way out, not only "must be an array"', { timeout: 30_000 }, async () => {
  const file = configFile(`${NODES_AND_MODELS}keys:\n`);
  const result = await runCli(['check', '--config', file]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    `switchyard: invalid configuration ${file} at keys: must be an array: "keys:" with nothing after it is empty (null) in YAML; write "keys: []" for none, or leave the line out\n`,
  );
});

test('check counts in words that agree with the number', { timeout: 30_000 }, async () => {
  const key = `sk-${randomBytes(16).toString('hex')}`;
  const result = await runCli(['check', '--config', configFile(`${NODES_AND_MODELS}keys:\n  - { key: ${key} }\n`)]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /: valid \(1 node, 1 model, 1 key\)\n$/);
});

test('serve --config prints where the console is when the admin API is on', { timeout: 60_000 }, async () => {
  const file = configFile(`store: memory\nadmin_key: \${SWITCHYARD_ADMIN_KEY}\n${NODES_AND_MODELS}`);
  const gateway = await startGatewayProcess(file, { SWITCHYARD_ADMIN_KEY: randomBytes(24).toString('hex') });
  try {
    assert.match(
      gateway.log(),
      new RegExp(`Console: ${gateway.origin}/console \\(sign in with the configuration's admin_key\\)`),
    );
  } finally {
    await stopGatewayProcess(gateway);
  }
});
