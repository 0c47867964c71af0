import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { parseConfigText } from '../../src/config/load-config.js';
import { startGateway, type RunningGateway } from '../../src/main.js';
import { runCli } from '../support/gateway-process.js';
import { accountWithKey, AdminClient, ADMIN_KEY, chat, gatewayYaml } from '../support/money.js';
import { storeBackends } from '../support/store-backends.js';
import { waitFor } from '../support/wait-for.js';

// Issue 32 ("watches both"): an operator lists the current windows of each end user of a
// key with end_user_budgets, read from the store, on memory, PGlite and PostgreSQL.

const backends = [
  { name: 'memory', store: 'memory', journalDir: '', skip: undefined as string | undefined, cleanup: async () => {} },
  ...(await storeBackends('end-user-windows')),
];
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

/** `flat` costs 2 USD per million output tokens and nothing for input: 8 tokens = 16,000 nano-USD. */
const FLAT_COST_NANO = 16_000;
const FLAT = { model: 'flat', max_tokens: 8 };
const usd = (nano: number) => nano / 1e9;
const DAY_LIMIT_NANO = 10e9;

interface EndUserWindows {
  end_user: string;
  windows: Array<{
    period: string;
    limit: number;
    spent: number;
    reserved: number;
    remaining: number;
    window_start: string;
    resets_at: string;
  }>;
}

for (const backend of backends) {
  describe(`end users' budget windows on ${backend.name}`, { skip: backend.skip }, () => {
    const now = { value: Date.parse('2026-07-01T10:00:00Z') };
    let gateway: RunningGateway;
    let admin: AdminClient;
    let keyId: string;
    let prefix: string;

    before(async () => {
      // The slow node waits 1.5 s before its first byte: a request holds its reservation that long.
      const yaml = gatewayYaml({ store: backend.store, journalDir: backend.journalDir })
        .replace(/usage: \{ journal_dir: "", /, 'usage: { ')
        .replace('tokens_per_second: 40 }', 'tokens_per_second: 40, first_byte_ms: 1500 }');
      assert.match(yaml, /first_byte_ms: 1500/);
      const config = parseConfigText(yaml, 'test', {});
      gateway = await startGateway(config, { port: 0, logger: pino({ level: 'silent' }), clock: () => now.value });
      admin = new AdminClient(gateway.baseUrl);
      const made = await accountWithKey(
        admin,
        { id: 'team', balance: 10 },
        {
          budgets: [{ limit: 200, period: 'month' }],
          end_user_budgets: [{ limit: usd(DAY_LIMIT_NANO), period: 'day' }],
        },
      );
      keyId = made.keyId;
      prefix = (await admin.ok('GET', `/keys/${keyId}`)).prefix as string;
      for (const user of ['alice', 'alice', 'bob'])
        assert.equal((await chat(gateway.baseUrl, made.secret, { ...FLAT, user })).status, 200);
      // A request without an end user books to the key only.
      assert.equal((await chat(gateway.baseUrl, made.secret, FLAT)).status, 200);
    });
    after(() => gateway?.close());

    test('both end users, the higher spender first, with spent, remaining and the reset', async () => {
      const answer = await admin.ok('GET', `/keys/${keyId}/end-users`);
      const users = answer.data as EndUserWindows[];
      const window = (spentNano: number) => ({
        period: 'day',
        limit: usd(DAY_LIMIT_NANO),
        spent: usd(spentNano),
        reserved: 0,
        remaining: usd(DAY_LIMIT_NANO - spentNano),
        window_start: '2026-07-01T00:00:00.000Z',
        resets_at: '2026-07-02T00:00:00.000Z',
      });
      assert.deepEqual(users, [
        { end_user: 'alice', windows: [window(2 * FLAT_COST_NANO)] },
        { end_user: 'bob', windows: [window(FLAT_COST_NANO)] },
      ]);
      // By the key's prefix too, and bounded.
      const first = await admin.ok('GET', `/keys/${prefix}/end-users?limit=1`);
      assert.deepEqual(
        (first.data as EndUserWindows[]).map((user) => user.end_user),
        ['alice'],
      );
    });

    test('a bad limit is 400, an unknown key 404, a key without end-user budgets has none', async () => {
      assert.equal((await admin.call('GET', `/keys/${keyId}/end-users?limit=0`)).status, 400);
      assert.equal((await admin.call('GET', `/keys/${keyId}/end-users?limit=1001`)).status, 400);
      assert.equal((await admin.call('GET', '/keys/key_nosuchkey/end-users')).status, 404);
      const plain = await accountWithKey(admin, { id: 'plain', balance: 1 });
      assert.equal((await chat(gateway.baseUrl, plain.secret, { ...FLAT, user: 'carol' })).status, 200);
      assert.deepEqual((await admin.ok('GET', `/keys/${plain.keyId}/end-users`)).data, []);
    });

    if (backend.name === 'memory')
      test('the CLI prints a row per end user and window', async () => {
        const env = { SWITCHYARD_CONFIG: '', SWITCHYARD_URL: admin.origin, SWITCHYARD_ADMIN_KEY: ADMIN_KEY };
        const printed = await runCli(['keys', 'end-users', keyId], env);
        assert.equal(printed.code, 0, printed.stderr);
        const lines = printed.stdout.trim().split('\n');
        assert.match(lines[0] ?? '', /^END_USER\s+PERIOD\s+SPENT\s+LIMIT\s+RESERVED\s+REMAINING\s+RESETS_AT$/);
        assert.match(
          lines[1] ?? '',
          new RegExp(
            `^alice\\s+day\\s+${usd(2 * FLAT_COST_NANO)}\\s+10\\s+0\\s+${usd(DAY_LIMIT_NANO - 2 * FLAT_COST_NANO)}\\s+2026-07-02T00:00:00.000Z$`,
          ),
        );
        assert.match(lines[2] ?? '', /^bob\s+day\s+/);
        assert.equal(lines.length, 3);
        const json = await runCli(['keys', 'end-users', keyId, '--limit', '1', '--json'], env);
        assert.equal(json.code, 0, json.stderr);
        assert.deepEqual(
          (JSON.parse(json.stdout) as { data: EndUserWindows[] }).data.map((user) => user.end_user),
          ['alice'],
        );
      });

    test('an end user whose first request is still running is listed with what it reserved', async () => {
      const { keyId: slowKey, secret } = await accountWithKey(
        admin,
        { id: 'slow-team', balance: 10 },
        { end_user_budgets: [{ limit: usd(DAY_LIMIT_NANO), period: 'day' }] },
      );
      const slow = chat(gateway.baseUrl, secret, { model: 'paid-slow', max_tokens: 40, user: 'carol' });
      const listed = async () => (await admin.ok('GET', `/keys/${slowKey}/end-users`)).data as EndUserWindows[];
      // Listed as soon as its reservation is made, well before the node's first byte.
      await waitFor(async () => (await listed()).length > 0, 1_200);
      const during = await listed();
      assert.equal(during.length, 1);
      assert.equal(during[0]?.end_user, 'carol');
      assert.equal(during[0]?.windows[0]?.spent, 0);
      assert.ok((during[0]?.windows[0]?.reserved ?? 0) > 0, JSON.stringify(during));
      assert.equal((await slow).status, 200);
      // Settled: the reservation is gone and the cost is spent (the settlement may trail the answer).
      const settledWindow = async () =>
        ((await admin.ok('GET', `/keys/${slowKey}/end-users`)).data as EndUserWindows[])[0]?.windows[0];
      await waitFor(async () => (await settledWindow())?.reserved === 0, 5_000);
      assert.ok(((await settledWindow())?.spent ?? 0) > 0);
    });

    test('the next day the windows are new: no end user has spent in them', async () => {
      now.value = Date.parse('2026-07-02T00:00:01Z');
      assert.deepEqual((await admin.ok('GET', `/keys/${keyId}/end-users`)).data, []);
      now.value = Date.parse('2026-07-01T10:00:00Z');
    });
  });
}
