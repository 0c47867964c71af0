import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type GatewayProcess, startGatewayProcess } from '../support/gateway-process.js';
import { AdminClient, chat, expectedCostNano, gatewayYaml, uniqueId, usdToNano } from '../support/money.js';
import { postChat } from '../support/post-chat.js';
import { type StoreBackend, storeBackends } from '../support/store-backends.js';

// Issue 4 / PRODUCT.md "Nothing lost": a gateway killed with SIGKILL right after N requests
// completed keeps every charge once restarted (journal replay), exactly once. The gateway
// runs as `switchyard serve --config FILE` in a child process, on PGlite and PostgreSQL.

const backends = await storeBackends('crash');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

const ACCOUNT_KEY = 'sk-crash-test-key-0123456789';

async function kill9(served: GatewayProcess): Promise<void> {
  served.child.kill('SIGKILL');
  assert.equal(await served.exited, null, 'killed by a signal');
}

function configFor(
  backend: StoreBackend,
  accountId: string,
  start: number,
  cleanup: (work: () => void) => void,
): string {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-crash-'));
  cleanup(() => rmSync(directory, { recursive: true, force: true }));
  const file = join(directory, 'gateway.yaml');
  // Batches wait a minute: at the kill nothing of the last requests has reached the store.
  const extra = `accounts:\n  - { id: ${accountId}, balance: ${start} }\nkeys:\n  - { key: ${ACCOUNT_KEY}, account: ${accountId}, spend_limit: 5 }\n`;
  writeFileSync(file, gatewayYaml(backend, { flushIntervalMs: 60_000, extra }));
  return file;
}

// The two backends run side by side: most of the time is child processes starting.
describe('SIGKILL and restart', { concurrency: true }, () => {
  for (const backend of backends) {
    test(
      `${backend.name}: N completed requests → kill -9 → restart: exactly N usage rows and balance = start − Σ cost; a second restart books nothing twice`,
      { skip: backend.skip },
      async (t) => {
        const accountId = uniqueId('crash');
        const start = 3;
        const file = configFor(backend, accountId, start, (work) => t.after(work));
        let served = await startGatewayProcess(file);
        t.after(() => served.child.kill('SIGKILL'));
        let admin = new AdminClient(served.baseUrl);

        const costs: number[] = [];
        const request = async (index: number, stream = false) => {
          const body = {
            model: index % 3 === 0 ? 'thinker' : 'paid',
            max_tokens: 20 + index,
            messages: [{ role: 'user', content: `crash request ${index}` }],
          };
          if (!stream) {
            const answer = await chat(served.baseUrl, ACCOUNT_KEY, body);
            assert.equal(answer.status, 200, JSON.stringify(answer.body));
            costs.push(expectedCostNano(body.model, answer.body.usage));
            return;
          }
          const response = await postChat(
            served.baseUrl,
            ACCOUNT_KEY,
            { ...body, stream: true, stream_options: { include_usage: true } },
            { timeoutMs: 60_000 },
          );
          const text = await response.text();
          assert.ok(text.endsWith('data: [DONE]\n\n'), text.slice(-200));
          const usageLine = text
            .split('\n')
            .filter((line) => line.includes('"usage":{'))
            .pop() as string;
          costs.push(expectedCostNano(body.model, JSON.parse(usageLine.slice('data: '.length)).usage));
        };

        // Some requests committed (the usage query writes what waits), then more that only the journal holds.
        for (let index = 0; index < 4; index++) await request(index);
        assert.equal((await admin.usage()).totals.requests, 4);
        for (let index = 4; index < 12; index++) await request(index, index % 2 === 0);
        // Before the batch is written the admin API already shows the settled money, on the account and on the key alike.
        const beforeKill = costs.reduce((sum, cost) => sum + cost, 0);
        const [liveKey] = (await admin.ok('GET', `/keys?account=${accountId}`)).data;
        assert.equal(await admin.balanceNano(accountId), usdToNano(start) - beforeKill, 'balance before the kill');
        assert.equal(await admin.spentNano(liveKey.id), beforeKill, 'key spent before the kill');
        await kill9(served);
        assert.ok(
          readdirSync(backend.journalDir).some((name) => name.endsWith('.ndjson')),
          'the killed gateway left its journal',
        );

        served = await startGatewayProcess(file);
        admin = new AdminClient(served.baseUrl);
        const expectedTotal = costs.reduce((sum, cost) => sum + cost, 0);
        const report = await admin.usage({ account: accountId });
        assert.equal(report.totals.requests, 12, 'every completed request has exactly one row');
        assert.equal(new Set(report.data.map((row: { request_id: string }) => row.request_id)).size, 12);
        assert.equal(report.totals.cost_nano, expectedTotal);
        assert.equal(await admin.balanceNano(accountId), usdToNano(start) - expectedTotal, 'balance = start − Σ cost');
        const keyId = report.data[0].key as string;
        assert.equal(await admin.spentNano(keyId), expectedTotal);
        // The account was not re-created by the configuration: its starting balance was booked once.
        assert.equal((await admin.ok('GET', `/accounts/${accountId}/ledger`)).data.length, 1);

        // Killed again with nothing new: the next start replays nothing twice.
        await kill9(served);
        served = await startGatewayProcess(file);
        admin = new AdminClient(served.baseUrl);
        assert.equal((await admin.usage({ account: accountId })).totals.requests, 12);
        assert.equal(await admin.balanceNano(accountId), usdToNano(start) - expectedTotal);
        await request(12);
        assert.equal(
          (await admin.usage({ account: accountId })).totals.cost_nano,
          expectedTotal + (costs[12] as number),
        );
        served.child.kill('SIGTERM');
        assert.equal(await served.exited, 0, 'a clean stop');
      },
    );
  }
});
