import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type GatewayProcess, startGatewayProcess, stopGatewayProcess } from '../support/gateway-process.js';
import {
  accountWithKey,
  AdminClient,
  chat,
  gatewayYaml,
  uniqueId,
  usdToNano,
  type ChatAnswerBody,
} from '../support/money.js';
import { postChat } from '../support/post-chat.js';
import { postgresBackend, storeBackends } from '../support/store-backends.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 32: budget windows are as exact as the spend limit. Two real gateway processes on
 * one PostgreSQL schema never let a window pass its limit; a gateway killed with SIGKILL in
 * the middle of a load loses no window spend (the window follows the usage row through
 * the crash journal).
 */
const postgres = await postgresBackend('shared-budgets');
const crashBackends = await storeBackends('budget-crash');
after(async () => {
  for (const backend of [postgres, ...crashBackends]) await backend.cleanup();
});

/** `flat` costs 2 USD per million output tokens and nothing for input: 8 tokens = 16,000 nano-USD, reserved and charged alike. */
const FLAT_COST_NANO = 16_000;
const FLAT = { model: 'flat', max_tokens: 8 };
const RELAXED_LIMITS = 'limits: { key: { rpm: 100000 }, account: { rpm: 100000 }, ip: { rpm: 100000 } }\n';

const tallyOf = (answers: Array<{ status: number; body: ChatAnswerBody }>) => {
  const tally: Record<string, number> = {};
  for (const answer of answers) {
    const label = answer.status === 200 ? '200' : `${answer.status} ${answer.body.error?.code}`;
    tally[label] = (tally[label] ?? 0) + 1;
  }
  return tally;
};

/** The figure once it reaches `expected` (batches commit a moment after the answers), or its last value. */
async function settled(read: () => Promise<number>, expected: number): Promise<number> {
  let value = await read();
  for (let tries = 0; tries < 100 && value !== expected; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

describe('a budget window across two instances on one PostgreSQL', { skip: postgres.skip }, () => {
  const instances: GatewayProcess[] = [];
  let admin: AdminClient;
  let directory: string;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'switchyard-shared-budgets-'));
    for (const name of ['a', 'b']) {
      const file = join(directory, `${name}.yaml`);
      writeFileSync(
        file,
        gatewayYaml(
          { store: postgres.store, journalDir: join(directory, `journal-${name}`) },
          { extra: RELAXED_LIMITS },
        ),
      );
      instances.push(await startGatewayProcess(file));
    }
    admin = new AdminClient((instances[0] as GatewayProcess).baseUrl);
  });
  after(async () => {
    await Promise.all(instances.map((instance) => stopGatewayProcess(instance)));
    rmSync(directory, { recursive: true, force: true });
  });

  test(
    '200 concurrent requests split over both instances against a window covering 10: exactly 10 served; window spent = key spent = ledger = balance taken',
    { timeout: 90_000 },
    async () => {
      const limitNano = 10 * FLAT_COST_NANO;
      const { accountId, keyId, secret } = await accountWithKey(
        admin,
        { id: 'window-split', balance: 10 },
        { budgets: [{ limit: limitNano / 1e9, period: 'month' }] },
      );
      for (const instance of instances)
        await waitFor(
          async () =>
            (await fetch(`${instance.baseUrl}/models`, { headers: { authorization: `Bearer ${secret}` } })).status ===
            200,
          5_000,
          { what: `${instance.baseUrl} to know the new key` },
        );
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          chat((instances[index % 2] as GatewayProcess).baseUrl, secret, {
            ...FLAT,
            messages: [{ role: 'user', content: `window request ${index}` }],
          }),
        ),
      );
      const tally = tallyOf(answers);
      assert.deepEqual(tally, { '200': 10, '402 budget_exceeded': 190 }, JSON.stringify(tally));
      const ledger = async () => (await admin.usage({ key: keyId })).totals.cost_nano as number;
      assert.equal(await settled(ledger, limitNano), limitNano);
      assert.equal(await admin.spentNano(keyId), limitNano);
      assert.equal(await admin.balanceNano(accountId), usdToNano(10) - limitNano);
      for (const instance of instances) {
        const window = (await new AdminClient(instance.baseUrl).ok('GET', `/keys/${keyId}`)).budgets[0];
        assert.equal(usdToNano(window.spent), limitNano, `window spent as ${instance.baseUrl} shows it`);
        assert.equal(window.remaining, 0);
        // Both instances refuse the next one.
        assert.equal((await chat(instance.baseUrl, secret, FLAT)).status, 402);
      }
    },
  );
});

describe('SIGKILL in the middle of a load loses no window spend', { concurrency: true }, () => {
  for (const backend of crashBackends)
    test(
      `${backend.name}: requests completed and streams cut by the kill are in the window after the restart`,
      { skip: backend.skip, timeout: 120_000 },
      async (t) => {
        const accountId = uniqueId('window-crash');
        const secret = `sk-window-crash-${accountId}`.slice(0, 60);
        const directory = mkdtempSync(join(tmpdir(), 'switchyard-window-crash-'));
        t.after(() => rmSync(directory, { recursive: true, force: true }));
        const file = join(directory, 'gateway.yaml');
        // Batches wait a minute: at the kill nothing of the load has reached the store.
        const extra = `${RELAXED_LIMITS}accounts:\n  - { id: ${accountId}, balance: 5, budgets: [{ limit: 4, period: month }] }\nkeys:\n  - { key: ${secret}, account: ${accountId}, budgets: [{ limit: 3, period: month }], end_user_budgets: [{ limit: 1, period: day }] }\n`;
        writeFileSync(file, gatewayYaml(backend, { flushIntervalMs: 60_000, extra }));
        let served = await startGatewayProcess(file);
        t.after(() => served.child.kill('SIGKILL'));
        for (let index = 0; index < 6; index++)
          assert.equal(
            (
              await chat(served.baseUrl, secret, {
                model: 'paid',
                max_tokens: 20,
                user: 'dev-1',
                messages: [{ role: 'user', content: `before ${index}` }],
              })
            ).status,
            200,
          );
        // Streams in flight at the kill (paid-slow streams 40 tokens a second).
        const streams = Array.from({ length: 6 }, (_, index) =>
          postChat(
            served.baseUrl,
            secret,
            {
              model: 'paid-slow',
              max_tokens: 200,
              stream: true,
              user: 'dev-1',
              messages: [{ role: 'user', content: `cut ${index}` }],
            },
            { timeoutMs: 30_000 },
          )
            .then((response) => response.text())
            .catch(() => ''),
        );
        await new Promise((resolve) => setTimeout(resolve, 2_600));
        served.child.kill('SIGKILL');
        assert.equal(await served.exited, null, 'killed by a signal');
        await Promise.all(streams);

        served = await startGatewayProcess(file);
        const admin = new AdminClient(served.baseUrl);
        const report = await admin.usage({ account: accountId });
        assert.ok(report.totals.requests >= 6, `completed rows replayed: ${report.totals.requests}`);
        const ledger = report.totals.cost_nano as number;
        assert.ok(ledger > 0);
        const keyId = report.data[0].key as string;
        const key = await admin.ok('GET', `/keys/${keyId}`);
        assert.equal(usdToNano(key.spent), ledger, 'key spent = ledger');
        assert.equal(usdToNano(key.budgets[0].spent), ledger, 'key window spent = ledger');
        const account = await admin.ok('GET', `/accounts/${accountId}`);
        assert.equal(usdToNano(account.budgets[0].spent), ledger, 'account window spent = ledger');
        assert.equal(await admin.balanceNano(accountId), usdToNano(5) - ledger, 'balance = start − ledger');
        served.child.kill('SIGTERM');
        assert.equal(await served.exited, 0);
      },
    );
});
