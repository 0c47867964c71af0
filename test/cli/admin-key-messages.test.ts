import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { expectError } from '../support/http-assertions.js';
import {
  runCli,
  scratchDirectory,
  startGatewayProcess,
  stopGatewayProcess,
  type GatewayProcess,
} from '../support/gateway-process.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 33 item 3: messages that name the wrong thing. /metrics and /admin/v1 take the admin
// key, so their 401s say "admin key" (the wire codes stay the spec's); the CLI says which URL
// refused it; `--store` works on that store or refuses, never a guessed gateway's admin API.

const ADMIN_KEY = `admin-${randomBytes(16).toString('hex')}`;
const API_KEY = `sk-${randomBytes(16).toString('hex')}`;
/** The CLI reads these from the environment; the runs here must not inherit a developer's. */
const NO_CLI_ENV = { SWITCHYARD_CONFIG: '', SWITCHYARD_URL: '', SWITCHYARD_ADMIN_KEY: '' };

describe('the admin key is called the admin key', { timeout: 90_000 }, () => {
  let gateway: TestGateway;

  before(async () => {
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
nodes:
  - { id: n, provider: simulated }
models:
  - { id: m, routes: [{ node: n }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
  });

  test('/metrics and /admin/v1 without a key: 401 authentication_required asking for the admin key', async () => {
    for (const path of ['/metrics', '/admin/v1/accounts']) {
      const body = await expectError(await fetch(`${gateway.origin}${path}`), {
        status: 401,
        code: 'authentication_required',
        type: 'authentication_error',
      });
      assert.match(body.error.message, /^Missing admin key: send the header "Authorization: Bearer <ADMIN_KEY>"/, path);
      assert.doesNotMatch(body.error.message, /API_KEY/, path);
    }
  });

  test('/metrics and /admin/v1 with an API key: 401 invalid_api_key saying an API key does not open it', async () => {
    for (const path of ['/metrics', '/admin/v1/accounts']) {
      const response = await fetch(`${gateway.origin}${path}`, { headers: { authorization: `Bearer ${API_KEY}` } });
      const body = await expectError(response, { status: 401, code: 'invalid_api_key', type: 'authentication_error' });
      assert.match(body.error.message, /^The admin key is wrong: .*not an API key/, path);
    }
  });

  test('the CLI names the URL that refused the key', async () => {
    const result = await runCli(['accounts', 'list', '--url', gateway.origin, '--admin-key', API_KEY], NO_CLI_ENV);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      `switchyard: GET ${gateway.origin}/admin/v1/accounts: The admin key is wrong: this endpoint takes the admin_key of the gateway's configuration, not an API key. (invalid_api_key, HTTP 401)\n`,
    );
  });
});

test('--store on a store a gateway holds refuses, and goes to no other gateway', { timeout: 180_000 }, async () => {
  const directory = scratchDirectory('store-held');
  const file = join(directory, 'gateway.yaml');
  const store = `pglite:${join(directory, 'data')}`;
  writeFileSync(
    file,
    `listen: { host: 127.0.0.1, port: 0 }
store: ${store}
usage: { journal_dir: ${join(directory, 'journal')} }
nodes:
  - { id: a, provider: simulated }
models:
  - { id: m, routes: [{ node: a }] }
`,
  );
  let holder: GatewayProcess | undefined;
  try {
    holder = await startGatewayProcess(file, {}, directory);
    // No --config: before, the CLI fell back to the demo's admin API on 127.0.0.1:8080 with the demo's admin key.
    const result = await runCli(['accounts', 'list', '--store', store], NO_CLI_ENV);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      new RegExp(
        `^switchyard: the embedded store .*data is in use by process ${String(holder.child.pid)}; --store works on a store no gateway holds; go through the gateway that holds it with --url URL --admin-key KEY\\n$`,
      ),
    );
  } finally {
    await stopGatewayProcess(holder);
  }
});
