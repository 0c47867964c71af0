import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { hashKey, keyPrefixOf } from '../../src/auth/key-registry.js';
import { configKeyId } from '../../src/billing/apply-config.js';
import { DEMO_API_KEY } from '../../src/config/demo-config.js';
import { parseConfigText } from '../../src/config/load-config.js';
import { parseStoreLocation } from '../../src/store/open-store.js';
import { migrate } from '../../src/store/sql/migrate.js';
import { MIGRATIONS } from '../../src/store/sql/migrations.js';
import { openPgDriver } from '../../src/store/sql/pg-driver.js';
import { openPgliteDriver } from '../../src/store/sql/pglite-driver.js';
import { accountWithKey, AdminClient, chat, gatewayYaml } from '../support/money.js';
import { postgresBackend, type StoreBackend, storeBackends } from '../support/store-backends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// PRODUCT decision 23: keys declared in the file are the file's. A key whose line is gone is
// blocked ("removed from the configuration") at reload and at start, and works again when
// the line comes back; keys made through the admin API and an operator's block are never
// touched by the file.

const backends = await storeBackends('keys-file');
const upgradeBackends = await storeBackends('keys-upgrade');
const shared = await postgresBackend('keys-file-shared');
after(() => Promise.all([...backends, ...upgradeBackends, shared].map((backend) => backend.cleanup())));

type Backend = Pick<StoreBackend, 'store' | 'journalDir' | 'skip'> & { readonly label: string };
const MEMORY: Backend = { label: 'memory', store: 'memory', journalDir: '/nonexistent', skip: undefined };
const REMOVED = 'removed from the configuration';

/** The money suites' gateway plus an account and the given file keys (`key status` for a status). */
function fileYaml(backend: Pick<StoreBackend, 'store' | 'journalDir'>, keys: readonly string[]): string {
  const line = (entry: string) => {
    const [key, status] = entry.split(' ');
    return `  - { key: ${key}, account: filed${status === undefined ? '' : `, status: ${status}`} }`;
  };
  return gatewayYaml(backend, {
    extra: `accounts:\n  - { id: filed, balance: 5 }\nkeys:\n${keys.map(line).join('\n')}\n`,
  });
}

async function reload(gateway: TestGateway, yaml: string): Promise<void> {
  await gateway.running.reload(parseConfigText(yaml, 'test', {}));
}

/** The status of a paid request with this key. */
async function paid(gateway: TestGateway, key: string): Promise<number> {
  return (await chat(gateway.baseUrl, key, { model: 'paid', max_tokens: 5 })).status;
}

for (const backend of [MEMORY, ...backends.map((each) => ({ ...each, label: each.name }))]) {
  const { label } = backend;
  describe(`keys from the file on ${label}`, { skip: backend.skip }, () => {
    const fileA = `sk-fa-${label}-0123456789abcdef`;
    const fileB = `sk-fb-${label}-0123456789abcdef`;

    test(
      'a key gone from the file → 401 after reload and after restart, back with its line; admin keys and operator blocks stay',
      { timeout: 120_000 },
      async () => {
        let gateway = await startTestGateway(fileYaml(backend, [fileA, fileB]));
        try {
          let admin = new AdminClient(gateway.baseUrl);
          const made = await accountWithKey(admin, { id: 'ops', balance: 1 });
          for (const key of [fileA, fileB, made.secret]) assert.equal(await paid(gateway, key), 200);
          await admin.ok('POST', `/keys/${keyPrefixOf(fileB)}/block`);
          assert.equal(await paid(gateway, fileB), 401, 'blocked by an operator');

          await reload(gateway, fileYaml(backend, [fileB]));
          assert.equal(await paid(gateway, fileA), 401, 'its line is gone: refused at once');
          const warned = gateway
            .logs()
            .find((entry) => entry.msg === 'keys removed from the configuration are blocked');
          assert.deepEqual(warned?.keys, [keyPrefixOf(fileA)], 'one log line names the blocked key by its prefix');
          const removed = await admin.ok('GET', `/keys/${keyPrefixOf(fileA)}`);
          assert.deepEqual([removed.status, removed.status_reason, removed.source], ['blocked', REMOVED, 'config']);
          assert.equal(
            await paid(gateway, fileB),
            401,
            "the operator's block stands although the file lists the key as active",
          );
          assert.equal(await paid(gateway, made.secret), 200, 'the admin key is not the file’s');
          const adminKey = await admin.ok('GET', `/keys/${made.keyId}`);
          assert.deepEqual([adminKey.status, adminKey.source], ['active', 'admin']);

          await reload(gateway, fileYaml(backend, [fileA, fileB]));
          assert.equal(await paid(gateway, fileA), 200, 'its line is back');
          assert.equal((await admin.ok('GET', `/keys/${keyPrefixOf(fileA)}`)).status_reason, null);
          assert.equal(await paid(gateway, fileB), 401);

          // A line's own status: the file blocks, and lifts only its own block.
          const fileC = `sk-fc-${label}-0123456789abcdef`;
          await reload(gateway, fileYaml(backend, [fileA, fileB, `${fileC} blocked`]));
          assert.equal(await paid(gateway, fileC), 401);
          assert.equal(
            (await admin.ok('GET', `/keys/${keyPrefixOf(fileC)}`)).status_reason,
            'blocked in the configuration',
          );
          await reload(gateway, fileYaml(backend, [fileA, fileB, fileC]));
          assert.equal(await paid(gateway, fileC), 200, 'the file lifts the block it set');
          await reload(gateway, fileYaml(backend, [fileA, fileB, `${fileC} revoked`]));
          await reload(gateway, fileYaml(backend, [fileA, fileB, fileC]));
          assert.equal(await paid(gateway, fileC), 401, 'revoked stays final');
          if (backend.store === 'memory') return;

          await gateway.close();
          gateway = await startTestGateway(fileYaml(backend, [fileB]));
          admin = new AdminClient(gateway.baseUrl);
          assert.equal(await paid(gateway, fileA), 401, 'started from a file without the line');
          assert.equal((await admin.ok('GET', `/keys/${keyPrefixOf(fileA)}`)).status_reason, REMOVED);
          assert.equal(await paid(gateway, made.secret), 200);

          await gateway.close();
          gateway = await startTestGateway(fileYaml(backend, [fileA, fileB]));
          assert.equal(await paid(gateway, fileA), 200, 'a start with the line back restores it');
          assert.equal(await paid(gateway, made.secret), 200);
          assert.equal(await paid(gateway, fileB), 401, 'the operator block survives restarts');
        } finally {
          await gateway.close();
        }
      },
    );
  });
}

describe('several instances on one PostgreSQL store', { skip: shared.skip }, () => {
  test(
    'a reload that drops a line on one instance refuses the key on the other at once; the line back restores it there',
    { timeout: 120_000 },
    async () => {
      const key = 'sk-fshared-0123456789abcdef';
      const other = 'sk-fother-0123456789abcdef';
      const on = (name: string) => ({
        store: shared.store,
        journalDir: mkdtempSync(join(tmpdir(), `switchyard-keys-${name}-`)),
      });
      const first = on('a');
      const second = on('b');
      const a = await startTestGateway(fileYaml(first, [key, other]));
      const b = await startTestGateway(fileYaml(second, [key, other]));
      try {
        assert.equal(await paid(b, key), 200);
        await reload(a, fileYaml(first, [other]));
        await waitFor(async () => (await paid(b, key)) === 401, 5000, {
          what: 'the other instance to refuse the key too',
        });
        await reload(a, fileYaml(first, [key, other]));
        await waitFor(async () => (await paid(b, key)) === 200, 5000, {
          what: 'the other instance to take the key back',
        });
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
  );
});

for (const backend of upgradeBackends) {
  describe(`a ${backend.name} store made before keys had owners`, { skip: backend.skip }, () => {
    test(
      'the keys a file declared become the file’s (the demo key written there is blocked by a file without it); admin keys stay admin keys',
      { timeout: 120_000 },
      async () => {
        const location = parseStoreLocation(backend.store);
        const driver =
          location.kind === 'pglite' ? await openPgliteDriver(location.dataDir) : await openPgDriver(backend.store);
        const adminSecret = 'sk-sy-made-by-an-operator-before-0123';
        const demoHash = hashKey(DEMO_API_KEY).toString('hex');
        try {
          await migrate(driver, MIGRATIONS.slice(0, 3));
          await driver.query("INSERT INTO accounts (id, balance_nano) VALUES ('demo', 10000000000)");
          await driver.query(
            "INSERT INTO api_keys (id, hash, prefix, account_id, status) VALUES ($1, $2, $3, 'demo', 'active'), ('key_0123456789abcdef', $4, $5, 'demo', 'active')",
            [
              configKeyId(demoHash),
              demoHash,
              keyPrefixOf(DEMO_API_KEY),
              hashKey(adminSecret).toString('hex'),
              keyPrefixOf(adminSecret),
            ],
          );
        } finally {
          await driver.close();
        }
        const own = `sk-own-${backend.name}-0123456789abcdef`;
        const gateway = await startTestGateway(fileYaml(backend, [own]));
        try {
          const admin = new AdminClient(gateway.baseUrl);
          assert.equal(await paid(gateway, own), 200);
          assert.equal(await paid(gateway, DEMO_API_KEY), 401, 'the demo key is not in this file');
          const demo = await admin.ok('GET', `/keys/${configKeyId(demoHash)}`);
          assert.deepEqual([demo.status, demo.status_reason, demo.source], ['blocked', REMOVED, 'config']);
          assert.equal(await paid(gateway, adminSecret), 200, 'an admin key is never touched by the file');
          assert.equal((await admin.ok('GET', '/keys/key_0123456789abcdef')).source, 'admin');
        } finally {
          await gateway.close();
        }
      },
    );
  });
}
