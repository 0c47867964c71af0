import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_API_KEY } from '../../src/config/demo-config.js';
import {
  type GatewayProcess,
  scratchDirectory,
  startGatewayProcess,
  stopGatewayProcess,
} from '../support/gateway-process.js';
import { chat } from '../support/money.js';

// PRODUCT decision 23, as a new user meets it in one clone: the demo (`npm start`) and a
// gateway started from a file without `store:` run in the same directory, side by side,
// and the configured one never learns the public demo key.

test(
  'the demo and a configured gateway without store: in one directory keep apart stores: the demo key gets 401 on the configured one',
  { timeout: 120_000 },
  async () => {
    const directory = scratchDirectory('demo-apart');
    const own = 'sk-operator-own-0123456789abcdef';
    const file = join(directory, 'switchyard.yaml');
    writeFileSync(
      file,
      `listen: { host: 127.0.0.1, port: 0 }
log_level: warn
nodes: [{ id: sim, provider: simulated }]
models:
  - { id: small, pricing: { input: 0.20, output: 0.60 }, routes: [{ node: sim }] }
accounts: [{ id: acme, balance: 5 }]
keys: [{ key: ${own}, account: acme }]
`,
    );
    let demo: GatewayProcess | undefined;
    let configured: GatewayProcess | undefined;
    try {
      const startDemo = () =>
        startGatewayProcess(undefined, { PORT: '0', SWITCHYARD_CONFIG: '', SWITCHYARD_STORE: undefined }, directory);
      // First the demo alone (`npm start`), stopped; then the operator's gateway.
      demo = await startDemo();
      assert.equal(
        (await chat(demo.baseUrl, DEMO_API_KEY, { model: 'demo-reasoner', max_tokens: 5 })).status,
        200,
        'the demo serves its key',
      );
      await stopGatewayProcess(demo);
      configured = await startGatewayProcess(file, {}, directory);
      assert.equal(
        (await chat(configured.baseUrl, DEMO_API_KEY, { model: 'small', max_tokens: 5 })).status,
        401,
        'the demo key is not in the operator’s store',
      );
      assert.equal((await chat(configured.baseUrl, own, { model: 'small', max_tokens: 5 })).status, 200);
      // Then both at once: neither holds the other's store.
      demo = await startDemo();
      assert.equal((await chat(demo.baseUrl, DEMO_API_KEY, { model: 'demo-reasoner', max_tokens: 5 })).status, 200);
      assert.equal((await chat(configured.baseUrl, DEMO_API_KEY, { model: 'small', max_tokens: 5 })).status, 401);
      assert.equal(
        (await chat(demo.baseUrl, own, { model: 'demo-reasoner', max_tokens: 5 })).status,
        401,
        'nor does the demo know the operator’s key',
      );
      assert.ok(existsSync(join(directory, '.switchyard', 'demo')), 'the demo keeps its own store');
      assert.ok(existsSync(join(directory, '.switchyard', 'data')), 'the configured gateway opens the default one');
    } finally {
      await Promise.all([stopGatewayProcess(demo), stopGatewayProcess(configured)]);
    }
  },
);
