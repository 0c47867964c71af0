import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { type GatewayProcess, startGatewayProcess, stopGatewayProcess } from '../support/gateway-process.js';
import { accountWithKey, AdminClient, chat, gatewayYaml, usdToNano, type ChatAnswerBody } from '../support/money.js';
import { POSTGRES_BASE_URL, postgresBackend } from '../support/store-backends.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 5: money holds across instances. Two real gateway processes share one PostgreSQL
 * schema; requests split between them can never spend more than a key's limit or an
 * account's balance, and budget one instance holds goes to the other when it needs it.
 */
const postgres = await postgresBackend('shared-money');
after(() => postgres.cleanup());

/** `flat` costs 2 USD per million output tokens and nothing for input: 8 tokens = 16,000 nano-USD, reserved and charged alike. */
const FLAT_COST_NANO = 16_000;
const FLAT = { model: 'flat', max_tokens: 8 };

const tallyOf = (statuses: Array<{ status: number; body: ChatAnswerBody }>) => {
  const tally: Record<string, number> = {};
  for (const answer of statuses) {
    const label = answer.status === 200 ? '200' : `${answer.status} ${answer.body.error?.code}`;
    tally[label] = (tally[label] ?? 0) + 1;
  }
  return tally;
};

describe('two instances on one PostgreSQL never overspend', { skip: postgres.skip }, () => {
  const instances: GatewayProcess[] = [];
  let admin: AdminClient;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-shared-money-'));
    for (const name of ['a', 'b']) {
      const file = join(dir, `${name}.yaml`);
      const yaml = gatewayYaml(
        { store: postgres.store, journalDir: join(dir, `journal-${name}`) },
        { extra: 'limits: { key: { rpm: 100000 }, account: { rpm: 100000 }, ip: { rpm: 100000 } }\n' },
      );
      writeFileSync(file, yaml);
      // One after the other: both migrate the same schema (the second finds it done).
      instances.push(await startGatewayProcess(file));
    }
    admin = new AdminClient((instances[0] as GatewayProcess).baseUrl);
  });
  after(() => Promise.all(instances.map((instance) => stopGatewayProcess(instance))));

  /** Resolves once both instances know the key (it was made through A; B learns of it by NOTIFY). */
  const knownOnBoth = async (secret: string) => {
    for (const instance of instances) {
      await waitFor(
        async () =>
          (await fetch(`${instance.baseUrl}/models`, { headers: { authorization: `Bearer ${secret}` } })).status ===
          200,
        5_000,
        { what: `${instance.baseUrl} to know the new key` },
      );
    }
  };

  /** The figure once it reaches `expected` (usage batches commit a moment after the answers), or its last value after ~2.5 s. */
  const settled = async (read: () => Promise<number>, expected: number): Promise<number> => {
    let value = await read();
    for (let tries = 0; tries < 50 && value !== expected; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      value = await read();
    }
    return value;
  };

  /** The suite's schema, and a client of its own on the PostgreSQL server (the test ends it). */
  const schema = new URL(postgres.store).searchParams.get('schema');
  const connectedClient = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: POSTGRES_BASE_URL });
    await client.connect();
    return client;
  };

  /** `count` concurrent requests, alternating between the two instances. */
  const split = (count: number, secret: string) =>
    Promise.all(
      Array.from({ length: count }, (_, index) =>
        chat((instances[index % 2] as GatewayProcess).baseUrl, secret, {
          ...FLAT,
          messages: [{ role: 'user', content: `split request ${index}` }],
        }),
      ),
    );

  test(
    '100 concurrent requests split across both instances, key limit covering 10: exactly 10 served, spent = limit',
    { timeout: 60_000 },
    async () => {
      const limitNano = 10 * FLAT_COST_NANO;
      const { accountId, keyId, secret } = await accountWithKey(
        admin,
        { id: 'split-key', balance: 10 },
        { spend_limit: limitNano / 1e9 },
      );
      await knownOnBoth(secret);
      const answers = await split(100, secret);
      const tally = tallyOf(answers);
      assert.deepEqual(tally, { '200': 10, '402 api_key_limit_exceeded': 90 }, JSON.stringify(tally));
      // Committed in the store (each instance writes its own batches).
      let report = await admin.usage({ key: keyId });
      for (let tries = 0; tries < 50; tries++) {
        report = await admin.usage({ key: keyId });
        if (report.totals.requests === 10) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(report.totals.requests, 10);
      assert.equal(report.totals.cost_nano, limitNano);
      assert.equal(await admin.spentNano(keyId), limitNano);
      assert.equal(await admin.balanceNano(accountId), usdToNano(10) - limitNano);
      // Both instances refuse the next one.
      for (const instance of instances) assert.equal((await chat(instance.baseUrl, secret, FLAT)).status, 402);
    },
  );

  test(
    '100 concurrent requests split across both instances, balance covering 10: exactly 10 served, balance ends at 0',
    { timeout: 60_000 },
    async () => {
      const { accountId, secret } = await accountWithKey(admin, {
        id: 'split-balance',
        balance: (10 * FLAT_COST_NANO) / 1e9,
      });
      await knownOnBoth(secret);
      const tally = tallyOf(await split(100, secret));
      assert.deepEqual(tally, { '200': 10, '402 insufficient_balance': 90 }, JSON.stringify(tally));
      assert.equal(await settled(() => admin.balanceNano(accountId), 0), 0);
      assert.equal((await admin.usage({ account: accountId })).totals.requests, 10);
    },
  );

  test(
    'budget held by one instance goes to the other when it needs it: sequential requests alternate and all fit',
    { timeout: 60_000 },
    async () => {
      const limitNano = 10 * FLAT_COST_NANO;
      const { keyId, secret } = await accountWithKey(
        admin,
        { id: 'handover', balance: 10 },
        { spend_limit: limitNano / 1e9 },
      );
      const [a, b] = instances as [GatewayProcess, GatewayProcess];
      await knownOnBoth(secret);
      // A asks first and holds everything the key may spend; B then needs it, one request at a time.
      const statuses: number[] = [(await chat(a.baseUrl, secret, FLAT)).status];
      for (let index = 1; index < 10; index++)
        statuses.push((await chat((index % 3 === 0 ? a : b).baseUrl, secret, FLAT)).status);
      assert.deepEqual(statuses, Array(10).fill(200), `statuses ${statuses.join(',')}`);
      assert.equal((await chat(b.baseUrl, secret, FLAT)).status, 402);
      assert.equal((await chat(a.baseUrl, secret, FLAT)).status, 402);
      assert.equal(await settled(() => admin.spentNano(keyId), limitNano), limitNano);
    },
  );

  test(
    "requests that waited on one ask for budget reserve one at a time: another holder's share is never spent",
    { timeout: 60_000 },
    async () => {
      const a = instances[0] as GatewayProcess;
      const { accountId, secret } = await accountWithKey(admin, {
        id: 'other-holder',
        balance: (10 * FLAT_COST_NANO) / 1e9,
      });
      await knownOnBoth(secret);
      // Another holder (an instance busy with it, that never gives it back) holds half the balance.
      const client = await connectedClient();
      try {
        await client.query(
          `INSERT INTO ${schema}.spend_holds (holder, kind, subject_id, amount_nano, expires_at) VALUES ('elsewhere:1:busy', 'account', $1, $2, now() + interval '1 hour')`,
          [accountId, 5 * FLAT_COST_NANO],
        );
        // Concurrent requests on one instance: they gather behind its asks for budget.
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            chat(a.baseUrl, secret, { ...FLAT, messages: [{ role: 'user', content: `gathered ${index}` }] }),
          ),
        );
        assert.deepEqual(tallyOf(answers), { '200': 5, '402 insufficient_balance': 5 });
        assert.equal(
          await settled(() => admin.balanceNano(accountId), 5 * FLAT_COST_NANO),
          5 * FLAT_COST_NANO,
          'what the other holder holds is left',
        );
      } finally {
        await client.end();
      }
    },
  );

  test(
    'an instance whose requests wait on an ask for budget keeps it when another instance wants it',
    { timeout: 60_000 },
    async () => {
      const a = instances[0] as GatewayProcess;
      const { accountId, secret } = await accountWithKey(admin, {
        id: 'busy-asking',
        balance: (10 * FLAT_COST_NANO) / 1e9,
      });
      await knownOnBoth(secret);
      const [locker, notifier] = await Promise.all([connectedClient(), connectedClient()]);
      try {
        // The account's row lock holds A's asks for its balance: A's requests wait on them.
        await locker.query('BEGIN');
        await locker.query(`SELECT 1 FROM ${schema}.accounts WHERE id = $1 FOR UPDATE`, [accountId]);
        const onA = Array.from({ length: 5 }, (_, index) =>
          chat(a.baseUrl, secret, { ...FLAT, messages: [{ role: 'user', content: `on A ${index}` }] }),
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        // Meanwhile another instance says it wants this balance (as a contended ask of its own does).
        await notifier.query('SELECT pg_notify($1, $2)', [
          'switchyard_changes',
          JSON.stringify({ kind: 'hold-wanted', id: `account:${accountId}`, holder: 'elsewhere:1:wanting' }),
        ]);
        await new Promise((resolve) => setTimeout(resolve, 100));
        await locker.query('COMMIT');
        // What A is granted goes to the requests that waited for it, not back to the store.
        assert.deepEqual(
          (await Promise.all(onA)).map((answer) => answer.status),
          [200, 200, 200, 200, 200],
        );
      } finally {
        await locker.query('ROLLBACK').catch(() => undefined);
        await Promise.all([locker.end(), notifier.end()]);
      }
      assert.equal(await settled(() => admin.balanceNano(accountId), 5 * FLAT_COST_NANO), 5 * FLAT_COST_NANO);
    },
  );

  test('an instance that stops gives its holds back', { timeout: 60_000 }, async () => {
    const b = instances[1] as GatewayProcess;
    const { secret } = await accountWithKey(admin, { id: 'release', balance: 1 });
    // The key was made through A; B learns of it by NOTIFY a moment later.
    await waitFor(async () => (await chat(b.baseUrl, secret, FLAT)).status === 200, 5_000, {
      what: 'B to serve the new key',
    });
    const client = await connectedClient();
    try {
      const holdsOf = async () =>
        Number(
          (
            await client.query(`SELECT count(*) AS n FROM ${schema}.spend_holds WHERE holder LIKE $1`, [
              `%:${b.child.pid}:%`,
            ])
          ).rows[0].n,
        );
      assert.ok((await holdsOf()) > 0, 'the instance holds budget while it serves');
      await stopGatewayProcess(b);
      assert.equal(await holdsOf(), 0);
    } finally {
      await client.end();
    }
  });
});
