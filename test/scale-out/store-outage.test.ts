import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type GatewayProcess, startGatewayProcess, stopGatewayProcess } from '../support/gateway-process.js';
import { accountWithKey, AdminClient, chat, gatewayYaml, usdToNano } from '../support/money.js';
import { postgresBackend } from '../support/store-backends.js';
import { TcpForwarder } from '../support/tcp-forwarder.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 5 item 4: PostgreSQL unreachable for a minute. The gateway reaches the machine's
 * PostgreSQL through a TCP forwarder the test cuts and restores; requests go on being
 * served from the cache, their usage rows wait in the journal, and when PostgreSQL is back
 * every charge is in the ledger exactly once: also after a crash during the outage.
 */
const OUTAGE_MS = 60_000;
/** `flat`: 8 output tokens at 2 USD/M = 16,000 nano-USD per request, charged exactly. */
const FLAT_COST_NANO = 16_000;
const FLAT = { model: 'flat', max_tokens: 8 };

const postgres = await postgresBackend('store-outage');
after(() => postgres.cleanup());

describe('PostgreSQL unreachable: served from the cache, no charge lost', { skip: postgres.skip }, () => {
  const forwarder = new TcpForwarder('127.0.0.1', Number(new URL(postgres.store).port || 5432));
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-outage-'));
  const journalDir = join(dir, 'journal');
  let gateway: GatewayProcess | undefined;
  let configFile = '';

  const writeConfig = (name: string, usageSettings = '') => {
    const store = new URL(postgres.store);
    store.port = String(forwarder.port);
    const file = join(dir, `${name}.yaml`);
    const yaml = gatewayYaml(
      { store: store.toString(), journalDir },
      { extra: 'limits: { key: { rpm: 100000 }, ip: { rpm: 100000 } }\n' },
    );
    writeFileSync(file, yaml.replace('usage: {', `usage: { ${usageSettings}`));
    return file;
  };

  before(async () => {
    await forwarder.open();
    configFile = writeConfig('gateway');
    gateway = await startGatewayProcess(configFile);
  });
  after(async () => {
    await stopGatewayProcess(gateway);
    await forwarder.cut();
  });

  /** Waits until the store has every row and the money they moved. */
  const committed = async (
    admin: AdminClient,
    keyId: string,
    accountId: string,
    requests: number,
    balanceNano: number,
  ) => {
    const took = await waitFor(
      async () =>
        (await admin.usage({ key: keyId })).totals.requests === requests &&
        (await admin.balanceNano(accountId)) === balanceNano,
      30_000,
      {
        everyMs: 100,
        what: 'every row and the money it moved in the store',
      },
    );
    const report = await admin.usage({ key: keyId });
    assert.equal(report.totals.requests, requests, 'every request is in the ledger once');
    assert.equal(report.totals.cost_nano, requests * FLAT_COST_NANO);
    assert.equal(await admin.balanceNano(accountId), balanceNano);
    assert.equal(await admin.spentNano(keyId), requests * FLAT_COST_NANO);
    return took;
  };

  test(
    `a ${OUTAGE_MS / 1000} s outage: requests keep being served, every charge is written when PostgreSQL is back`,
    { timeout: OUTAGE_MS + 90_000 },
    async () => {
      const live = gateway as GatewayProcess;
      const admin = new AdminClient(live.baseUrl);
      const { accountId, keyId, secret } = await accountWithKey(admin, { id: 'outage', balance: 1 });
      for (let index = 0; index < 5; index++) assert.equal((await chat(live.baseUrl, secret, FLAT)).status, 200);
      await committed(admin, keyId, accountId, 5, usdToNano(1) - 5 * FLAT_COST_NANO);

      await forwarder.cut();
      const statuses: number[] = [];
      const started = Date.now();
      let readyDuringOutage: { status: number; failing: string[] } | undefined;
      while (Date.now() - started < OUTAGE_MS) {
        const answers = await Promise.all([0, 1, 2].map(() => chat(live.baseUrl, secret, FLAT)));
        statuses.push(...answers.map((answer) => answer.status));
        if (readyDuringOutage === undefined && Date.now() - started > 2000) {
          const ready = await fetch(`${live.origin}/readyz`);
          readyDuringOutage = {
            status: ready.status,
            failing: ((await ready.json()) as { failing: string[] }).failing,
          };
        }
        await sleep(250);
      }
      const served = statuses.filter((status) => status === 200).length;
      assert.equal(
        served,
        statuses.length,
        `every request served during the outage: ${JSON.stringify(statuses.filter((status) => status !== 200))}`,
      );
      assert.ok(served > 100, `${served} requests during the outage`);
      assert.deepEqual(readyDuringOutage, { status: 503, failing: ['store'] });
      // Waiting rows are on disk (the journal), not only in memory.
      assert.ok(readdirSync(journalDir).length > 0, 'the journal holds the waiting rows');

      await forwarder.open();
      const took = await committed(admin, keyId, accountId, 5 + served, usdToNano(1) - (5 + served) * FLAT_COST_NANO);
      console.log(
        `${served} requests served during a ${OUTAGE_MS / 1000} s outage; all booked ${took} ms after PostgreSQL came back`,
      );
      assert.deepEqual(
        readdirSync(journalDir).filter((name) => !name.includes('active')),
        [],
        'committed journal files are removed',
      );
    },
  );

  test(
    'killed while PostgreSQL is unreachable: the next start books the journaled rows, once',
    { timeout: 90_000 },
    async () => {
      const live = gateway as GatewayProcess;
      const admin = new AdminClient(live.baseUrl);
      const { accountId, keyId, secret } = await accountWithKey(admin, { id: 'outage-kill', balance: 1 });
      assert.equal((await chat(live.baseUrl, secret, FLAT)).status, 200);
      await committed(admin, keyId, accountId, 1, usdToNano(1) - FLAT_COST_NANO);
      await forwarder.cut();
      for (let index = 0; index < 7; index++) assert.equal((await chat(live.baseUrl, secret, FLAT)).status, 200);
      await stopGatewayProcess(live, 'SIGKILL');
      await forwarder.open();
      gateway = await startGatewayProcess(configFile);
      const restarted = new AdminClient(gateway.baseUrl);
      await committed(restarted, keyId, accountId, 8, usdToNano(1) - 8 * FLAT_COST_NANO);
    },
  );

  test(
    'a full backlog refuses requests with 503 usage_backlog_full instead of losing charges, and serves again once written',
    { timeout: 90_000 },
    async () => {
      await stopGatewayProcess(gateway);
      gateway = await startGatewayProcess(writeConfig('small-backlog', 'max_waiting_rows: 5,'));
      const live = gateway;
      const admin = new AdminClient(live.baseUrl);
      const { accountId, keyId, secret } = await accountWithKey(admin, { id: 'backlog', balance: 1 });
      await forwarder.cut();
      const answers = [];
      try {
        for (let index = 0; index < 7; index++) answers.push(await chat(live.baseUrl, secret, FLAT));
      } catch (error) {
        console.log(live.log());
        throw error;
      }
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200, 200, 200, 200, 503, 503],
      );
      assert.equal(answers[5]?.body.error.code, 'usage_backlog_full');
      assert.equal(answers[5]?.body.error.type, 'service_unavailable');
      await forwarder.open();
      await committed(admin, keyId, accountId, 5, usdToNano(1) - 5 * FLAT_COST_NANO);
      assert.equal((await chat(live.baseUrl, secret, FLAT)).status, 200);
    },
  );
});
