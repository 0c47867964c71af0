import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type GatewayProcess, startGatewayProcess, stopGatewayProcess } from '../support/gateway-process.js';
import { accountWithKey, AdminClient, chat, gatewayYaml, usdToNano } from '../support/money.js';
import { postgresBackend } from '../support/store-backends.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 32 item 4 across instances: two gateway processes on one PostgreSQL schema. A key
 * rotated through one is rotated on the other (it learns the new secret and the old one's
 * end through the store's change notifications); under load split across both, no request
 * fails; after the grace both refuse the old secret; every request books to the one key.
 */
const postgres = await postgresBackend('key-rotation');
after(() => postgres.cleanup());

const FLAT = { model: 'flat', max_tokens: 8 };

describe('a key rotated on one instance is rotated on both', { skip: postgres.skip }, () => {
  const instances: GatewayProcess[] = [];
  let admin: AdminClient;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-key-rotation-'));
    for (const name of ['a', 'b']) {
      const file = join(dir, `${name}.yaml`);
      const yaml = gatewayYaml(
        { store: postgres.store, journalDir: join(dir, `journal-${name}`) },
        { extra: 'limits: { key: { rpm: 100000 }, account: { rpm: 100000 }, ip: { rpm: 100000 } }\n' },
      );
      writeFileSync(file, yaml);
      instances.push(await startGatewayProcess(file));
    }
    admin = new AdminClient((instances[0] as GatewayProcess).baseUrl);
  });
  after(() => Promise.all(instances.map((instance) => stopGatewayProcess(instance))));

  const statusOn = async (instance: GatewayProcess, secret: string) =>
    (await chat(instance.baseUrl, secret, FLAT)).status;

  const acceptedOnBoth = async (secret: string) => {
    for (const instance of instances) {
      await waitFor(async () => (await statusOn(instance, secret)) === 200, 5_000, {
        what: `${instance.baseUrl} to accept the secret`,
      });
    }
  };

  test(
    'rotation under load split across both instances: no failed request, then the old secret is refused on both',
    {
      timeout: 90_000,
    },
    async () => {
      const key = await accountWithKey(admin, { id: 'rotating', balance: 20 });
      await acceptedOnBoth(key.secret);
      const WORKERS = 6;
      const REQUESTS_PER_WORKER = 30;
      const GRACE_SECONDS = 4;
      let secret = key.secret;
      let rotation: Promise<{ key: string; previous_expires_at: string }> | undefined;
      const failures: string[] = [];
      let served = 0;
      const worker = async (workerIndex: number) => {
        for (let index = 0; index < REQUESTS_PER_WORKER; index++) {
          const instance = instances[(workerIndex + index) % 2] as GatewayProcess;
          const answer = await chat(instance.baseUrl, secret, FLAT);
          if (answer.status === 200) served++;
          else failures.push(`${answer.status} ${JSON.stringify(answer.body)}`);
          if (served >= (WORKERS * REQUESTS_PER_WORKER) / 3 && rotation === undefined) {
            // Rotated through instance A; the clients switch once the new secret is known to
            // both (how an operator rolls it out), while the old one is still in its grace.
            rotation = admin.ok('POST', `/keys/${key.keyId}/rotate`, { grace_seconds: GRACE_SECONDS });
            void rotation.then(async (rotated) => {
              await acceptedOnBoth(rotated.key);
              secret = rotated.key;
            });
          }
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)));
      assert.deepEqual(failures, [], 'no request failed');
      assert.ok(rotation !== undefined, 'rotated mid-load');
      const rotated = await rotation;

      // Instance B learned the old secret's end too: both refuse it after the grace.
      const graceEnd = Date.parse(rotated.previous_expires_at);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, graceEnd - Date.now() + 50)));
      for (const instance of instances) {
        const answer = await chat(instance.baseUrl, key.secret, FLAT);
        assert.equal(answer.status, 401, `${instance.baseUrl}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error.code, 'invalid_api_key');
        assert.match(answer.body.error.message, /rotated/);
        assert.equal(await statusOn(instance, rotated.key), 200, `${instance.baseUrl} serves the new secret`);
      }

      // One key, one ledger: every 200 of both secrets on both instances is a row of it, and
      // its spend and its account's balance are the rows' cost (once every batch committed).
      const ledgerMatches = async () => {
        const usage = await admin.usage({ key: key.keyId, limit: '0' });
        return (
          usage.totals.requests >= served + instances.length &&
          (await admin.spentNano(key.keyId)) === usage.totals.cost_nano &&
          (await admin.balanceNano(key.accountId)) === usdToNano(20) - usage.totals.cost_nano
        );
      };
      await waitFor(ledgerMatches, 10_000, { what: 'rows, spend and balance to agree' });
    },
  );

  test('an expiry set through one instance is enforced by the other', { timeout: 30_000 }, async () => {
    const key = await accountWithKey(admin, { id: 'expiring', balance: 1 });
    await acceptedOnBoth(key.secret);
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    await admin.ok('PATCH', `/keys/${key.keyId}`, { expires_at: expiresAt });
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 50));
    const other = instances[1] as GatewayProcess;
    const answer = await chat(other.baseUrl, key.secret, FLAT);
    assert.equal(answer.status, 401, JSON.stringify(answer.body));
    assert.match(answer.body.error.message, /expired at/);
  });
});
