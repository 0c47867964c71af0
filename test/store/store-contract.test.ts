import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { MAX_BALANCE_NANO } from '../../src/billing/money.js';
import { MIGRATIONS } from '../../src/store/sql/migrations.js';
import { openStore, parseStoreLocation } from '../../src/store/open-store.js';
import type { StoreChange, UsageFilter, UsageRow, UsageStatsBucket } from '../../src/store/records.js';
import type { Store } from '../../src/store/store.js';
import { postgresQuery, storeBackends } from '../support/store-backends.js';
import { waitFor } from '../support/wait-for.js';

// One suite of Store behaviours, run on every backend: memory, PGlite (a temporary
// directory) and PostgreSQL (a fresh schema on the test database). What a backend may do
// differently is named where it is asserted (persistence, sharing between processes).

const NANO = 1_000_000_000;
const backends = await storeBackends('store-contract');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

const cases = [
  { name: 'memory', store: 'memory', skip: undefined as string | undefined, persistent: false, shared: false },
  ...backends.map((backend) => ({
    name: backend.name,
    store: backend.store,
    skip: backend.skip,
    persistent: true,
    shared: backend.name === 'postgres',
  })),
];

function usageRow(requestId: string, fields: Partial<UsageRow> = {}): UsageRow {
  return {
    requestId,
    correlationId: requestId,
    keyId: 'key_a',
    accountId: 'acme',
    model: 'm',
    node: 'n',
    attempts: 1,
    promptTokens: 10,
    completionTokens: 5,
    reasoningTokens: 1,
    cachedTokens: 2,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    costNano: 1_000,
    estimated: false,
    status: 200,
    errorCode: null,
    latencyMs: 3,
    firstByteMs: 1,
    stream: false,
    finishReason: 'stop',
    frontDoor: 'chat',
    modelRequested: null,
    endUser: null,
    features: null,
    affinity: 'hit',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

const at = (second: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

for (const backend of cases) {
  describe(`store contract: ${backend.name}`, { skip: backend.skip }, () => {
    let store: Store;
    const changes: StoreChange[] = [];

    after(() => store?.close());

    test('opens (applying every migration on a new SQL store) and answers', async () => {
      store = await openStore(parseStoreLocation(backend.store));
      store.onChange((change) => changes.push(change));
      assert.equal(store.kind, backend.name);
      await store.ping();
      assert.deepEqual(await store.loadAll(), { accounts: [], keys: [] }, 'a new store is empty');
      assert.equal(
        store.spendHolds !== undefined,
        backend.shared,
        'spend holds exactly where instances share the store',
      );
    });

    test('an account is inserted once with its initial balance entry; updates patch only the fields named', async () => {
      assert.equal(
        await store.insertAccountIfAbsent(
          { id: 'acme', name: 'Acme', balanceNano: 5 * NANO, allowedModels: ['m'] },
          'opening',
        ),
        true,
      );
      assert.equal(await store.insertAccountIfAbsent({ id: 'acme', balanceNano: 1 }, 'again'), false, 'the id exists');
      const account = await store.getAccount('acme');
      assert.equal(account?.balanceNano, 5 * NANO);
      assert.deepEqual(account?.allowedModels, ['m']);
      assert.equal(account?.name, 'Acme');
      assert.equal(await store.getAccount('nobody'), undefined);

      const updated = await store.updateAccount('acme', { limits: { rpm: 7 }, policy: { streaming: false } });
      assert.deepEqual(updated?.limits, { rpm: 7 });
      assert.deepEqual(updated?.policy, { streaming: false });
      assert.equal(updated?.name, 'Acme', 'the name was left alone');
      assert.deepEqual(updated?.allowedModels, ['m']);
      assert.equal(await store.updateAccount('nobody', { name: 'x' }), undefined);

      const [initial] = await store.balanceEntries('acme', 10);
      assert.equal(initial?.kind, 'initial');
      assert.equal(initial?.amountNano, 5 * NANO);
      assert.equal(initial?.balanceAfterNano, 5 * NANO);
      assert.equal(initial?.reason, 'opening');
    });

    // Issue 28 finding 11: nano-USD above 2^53 (about 9 million USD) lose exactness; a balance
    // stays within MAX_BALANCE_USD (1 million), checked in the same atomic step as the change.
    test('a balance is bounded, exactly, at the largest an account may hold', async () => {
      await store.insertAccountIfAbsent(
        { id: 'rich', name: null, balanceNano: 0, allowedModels: null, limits: null, policy: null },
        'opening',
      );
      const entriesBefore = (await store.balanceEntries('rich', 10)).length;
      const step = MAX_BALANCE_NANO / 4 + 1;
      const changes = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          store.adjustBalance('rich', step, 'topup', `invoice ${index}`, MAX_BALANCE_NANO),
        ),
      );
      assert.equal(changes.filter((entry) => entry !== undefined).length, 3, 'only three top-ups fit');
      const balance = (await store.getAccount('rich'))?.balanceNano;
      assert.equal(balance, 3 * step, 'exact, and nothing past the bound was booked');
      assert.ok((balance as number) <= MAX_BALANCE_NANO && Number.isSafeInteger(balance));
      const last = await store.adjustBalance(
        'rich',
        MAX_BALANCE_NANO - 3 * step,
        'topup',
        'to the top',
        MAX_BALANCE_NANO,
      );
      assert.equal(last?.balanceAfterNano, MAX_BALANCE_NANO, 'exactly the bound fits');
      assert.equal(await store.adjustBalance('rich', 1, 'topup', 'one more', MAX_BALANCE_NANO), undefined);
      const down = await store.adjustBalance('rich', -1, 'adjustment', 'down', MAX_BALANCE_NANO);
      assert.equal(down?.balanceAfterNano, MAX_BALANCE_NANO - 1);
      assert.equal(
        (await store.balanceEntries('rich', 10)).length,
        entriesBefore + 5,
        'a refused change leaves no entry',
      );
    });

    test('balance changes are exact in nano-USD and each leaves a ledger entry, newest first', async () => {
      const topup = await store.adjustBalance('acme', 1_234_567_891, 'topup', 'invoice 7', MAX_BALANCE_NANO);
      assert.equal(topup?.balanceAfterNano, 5 * NANO + 1_234_567_891);
      const debit = await store.adjustBalance('acme', -234_567_891, 'adjustment', 'refund reversed', MAX_BALANCE_NANO);
      assert.equal(debit?.balanceAfterNano, 6 * NANO);
      assert.equal((await store.getAccount('acme'))?.balanceNano, 6 * NANO);
      assert.equal(
        await store.adjustBalance('nobody', 1, 'topup', 'x', MAX_BALANCE_NANO),
        undefined,
        'no such account',
      );

      const entries = await store.balanceEntries('acme', 10);
      assert.deepEqual(
        entries.map((entry) => [entry.kind, entry.amountNano, entry.reason]),
        [
          ['adjustment', -234_567_891, 'refund reversed'],
          ['topup', 1_234_567_891, 'invoice 7'],
          ['initial', 5 * NANO, 'opening'],
        ],
      );
      assert.equal((await store.balanceEntries('acme', 1)).length, 1, 'the limit bounds the entries');
    });

    test('a key is inserted once per hash; its source and status_reason are kept; deleted keys leave loadAll', async () => {
      assert.equal(
        await store.insertKeyIfAbsent({
          id: 'key_a',
          hash: 'a'.repeat(64),
          prefix: 'sk-a',
          accountId: 'acme',
          name: 'main',
        }),
        true,
      );
      assert.equal(
        await store.insertKeyIfAbsent({ id: 'key_a2', hash: 'a'.repeat(64), prefix: 'sk-a', accountId: 'acme' }),
        false,
        'same hash',
      );
      assert.equal(
        await store.insertKeyIfAbsent({
          id: 'key_f',
          hash: 'f'.repeat(64),
          prefix: 'sk-f',
          accountId: null,
          source: 'config',
          status: 'blocked',
          statusReason: 'removed from the configuration',
        }),
        true,
      );
      assert.equal(
        await store.insertKeyIfAbsent({
          id: 'key_d',
          hash: 'd'.repeat(64),
          prefix: 'sk-d',
          accountId: 'acme',
          spendLimitNano: 3 * NANO,
        }),
        true,
      );

      const key = await store.getKey('key_a');
      assert.equal(key?.source, 'admin', 'a key nobody declared in a file is an admin key');
      assert.equal(key?.status, 'active');
      assert.equal(key?.statusReason, null);
      assert.equal(key?.spentNano, 0);
      assert.equal(key?.lastUsedAt, null);
      const fromFile = await store.getKey('key_f');
      assert.equal(fromFile?.source, 'config');
      assert.equal(fromFile?.statusReason, 'removed from the configuration');
      assert.equal((await store.getKey('key_d'))?.spendLimitNano, 3 * NANO);

      const revived = await store.updateKey('key_f', { status: 'active', statusReason: null });
      assert.equal(revived?.status, 'active');
      assert.equal(revived?.statusReason, null);
      assert.equal(revived?.source, 'config', 'an update never changes the source');
      assert.equal(await store.updateKey('key_nobody', { name: 'x' }), undefined);

      await store.updateKey('key_d', { status: 'deleted' });
      assert.deepEqual((await store.loadAll()).keys.map((entry) => entry.id).sort(), ['key_a', 'key_f']);
      assert.deepEqual((await store.listKeys({})).map((entry) => entry.id).sort(), ['key_a', 'key_f']);
      assert.deepEqual((await store.listKeys({ includeDeleted: true })).map((entry) => entry.id).sort(), [
        'key_a',
        'key_d',
        'key_f',
      ]);
      assert.deepEqual(
        (await store.listKeys({ source: 'config' })).map((entry) => entry.id),
        ['key_f'],
      );
      assert.deepEqual(
        (await store.listKeys({ accountId: 'acme' })).map((entry) => entry.id),
        ['key_a'],
      );
      assert.deepEqual(
        (await store.listKeys({ prefix: 'sk-a' })).map((entry) => entry.id),
        ['key_a'],
      );
    });

    test('usage rows are booked once per request id, moving balance, spend and last use exactly', async () => {
      const settled = await store.recordUsage([
        usageRow('req_1', { createdAt: at(1) }),
        usageRow('req_2', { createdAt: at(2), costNano: 2_500 }),
      ]);
      assert.equal(settled.accounts.get('acme'), 6 * NANO - 3_500);
      assert.equal(settled.keys.get('key_a'), 3_500);

      const again = await store.recordUsage([
        usageRow('req_2', { costNano: 999_999 }),
        usageRow('req_3', { createdAt: at(3) }),
        usageRow('req_3', { costNano: 999_999 }),
      ]);
      assert.equal(
        again.accounts.get('acme'),
        6 * NANO - 4_500,
        'a replayed request id is skipped, within a batch too',
      );
      assert.equal((await store.getAccount('acme'))?.balanceNano, 6 * NANO - 4_500);
      const key = await store.getKey('key_a');
      assert.equal(key?.spentNano, 4_500);
      assert.equal(key?.lastUsedAt === null ? null : new Date(key.lastUsedAt).toISOString(), at(3));
      assert.deepEqual(
        (await store.balanceEntries('acme', 10)).length,
        3,
        'usage is in the usage ledger, not among the balance entries',
      );
    });

    test('usage queries: newest first, filters by key, account, model and time, totals past the row limit', async () => {
      await store.recordUsage([
        usageRow('req_4', {
          createdAt: at(4),
          model: 'other',
          accountId: null,
          keyId: 'key_f',
          costNano: 0,
          frontDoor: 'messages',
          modelRequested: 'other-*-alias',
        }),
      ]);
      const all = await store.queryUsage({ limit: 2 });
      assert.deepEqual(
        all.rows.map((row) => row.requestId),
        ['req_4', 'req_3'],
      );
      assert.deepEqual(all.totals, {
        requests: 4,
        promptTokens: 40,
        completionTokens: 20,
        reasoningTokens: 4,
        cachedTokens: 8,
        cacheWriteTokens: 0,
        costNano: 4_500,
      });

      assert.equal(all.rows[0]?.frontDoor, 'messages', 'a row keeps the front door it came through');
      assert.equal(all.rows[0]?.modelRequested, 'other-*-alias', 'a row keeps the id asked (an alias)');
      const row = all.rows[1] as UsageRow;
      assert.deepEqual(
        { ...row, createdAt: new Date(row.createdAt).toISOString() },
        usageRow('req_3', { createdAt: at(3) }),
        'a row reads back as written',
      );

      assert.deepEqual(
        (await store.queryUsage({ keyId: 'key_a', limit: 10 })).rows.map((entry) => entry.requestId),
        ['req_3', 'req_2', 'req_1'],
      );
      assert.equal((await store.queryUsage({ accountId: 'acme', limit: 0 })).totals.requests, 3);
      assert.deepEqual(
        (await store.queryUsage({ model: 'other', limit: 10 })).rows.map((entry) => entry.requestId),
        ['req_4'],
      );
      const window = await store.queryUsage({ from: at(2), to: at(4), limit: 10 });
      assert.deepEqual(
        window.rows.map((entry) => entry.requestId),
        ['req_3', 'req_2'],
        'from inclusive, to exclusive',
      );
    });

    test('a change is announced for the records written', async () => {
      await store.updateAccount('acme', { name: 'Acme Ltd' });
      await store.updateKey('key_a', { name: 'renamed' });
      await waitFor(
        () =>
          changes.some((change) => change.kind === 'account' && change.id === 'acme') &&
          changes.some((change) => change.kind === 'key' && change.id === 'key_a'),
        5000,
        {
          what: () => `account and key changes; got ${JSON.stringify(changes)}`,
        },
      );
    });

    test(
      "spend holds (shared stores): granted only out of the free budget, taken by the holder's booked usage, released",
      { skip: !backend.shared },
      async () => {
        const holds = store.spendHolds;
        assert.ok(holds);
        // key_d is deleted: use a fresh key with a 1 USD spend limit.
        await store.insertKeyIfAbsent({
          id: 'key_h',
          hash: 'b'.repeat(64),
          prefix: 'sk-h',
          accountId: 'acme',
          spendLimitNano: NANO,
        });
        const [first] = await holds.acquire('inst-a', [{ kind: 'key', id: 'key_h', wantNano: 700_000_000 }], 60_000);
        assert.equal(first?.heldNano, 700_000_000);
        assert.equal(first?.contended, false);
        const [second] = await holds.acquire('inst-b', [{ kind: 'key', id: 'key_h', wantNano: 700_000_000 }], 60_000);
        assert.equal(second?.heldNano, 300_000_000, 'only what A does not hold');
        assert.equal(second?.contended, true);

        await store.recordUsage([usageRow('req_h', { keyId: 'key_h', costNano: 100_000_000 })], 'inst-a');
        const renewed = await holds.renew('inst-a', 60_000);
        assert.deepEqual(
          renewed.filter((hold) => hold.kind === 'key'),
          [{ kind: 'key', id: 'key_h', heldNano: 600_000_000 }],
          "the booked cost came out of A's hold",
        );

        await holds.releaseAll('inst-a');
        assert.deepEqual(await holds.renew('inst-a', 60_000), []);
        const [later] = await holds.acquire('inst-b', [{ kind: 'key', id: 'key_h', wantNano: 600_000_000 }], 60_000);
        assert.equal(later?.heldNano, 900_000_000, 'B may now hold the whole unspent limit');
        await holds.releaseAll('inst-b');
      },
    );

    test(
      'reopening keeps every record (persistent stores) and applies no migration twice',
      { skip: !backend.persistent },
      async () => {
        await store.close();
        store = await openStore(parseStoreLocation(backend.store));
        assert.equal(
          (await store.getAccount('acme'))?.balanceNano,
          6 * NANO - 4_500 - (backend.shared ? 100_000_000 : 0),
        );
        assert.equal((await store.getKey('key_f'))?.source, 'config');
        assert.equal((await store.queryUsage({ limit: 0 })).totals.requests, backend.shared ? 5 : 4);
        if (backend.name === 'postgres') {
          // Every migration is recorded exactly once in this schema.
          const schema = new URL(backend.store).searchParams.get('schema');
          await postgresQuery(
            `DO $$ BEGIN IF (SELECT count(*) FROM ${schema}.switchyard_migrations) <> ${MIGRATIONS.length} THEN RAISE EXCEPTION 'migrations'; END IF; END $$`,
          );
        }
      },
    );

    test("a usage row's priced node features (server-tool calls, tier, betas) come back as booked; none: null", async () => {
      const features = {
        server_tool_calls: { web_search: 3, code_execution: 1 },
        service_tier: 'priority',
        betas: ['context-1m-2025-08-07'],
      };
      await store.recordUsage([
        usageRow('req_features', { keyId: 'key_features', createdAt: at(6), features }),
        usageRow('req_no_features', { keyId: 'key_features', createdAt: at(7) }),
      ]);
      const rows = (await store.queryUsage({ keyId: 'key_features', limit: 10 })).rows;
      assert.deepEqual(
        rows.map((row) => [row.requestId, row.features]),
        [
          ['req_no_features', null],
          ['req_features', features],
        ],
      );
    });

    test('a usage row keeps its end user; queries filter by it and total per end user, highest cost first', async () => {
      await store.recordUsage([
        usageRow('req_eu_1', { keyId: 'key_eu', endUser: 'alice', costNano: 100, createdAt: at(10) }),
        usageRow('req_eu_2', { keyId: 'key_eu', endUser: 'bob', costNano: 700, createdAt: at(11) }),
        usageRow('req_eu_3', { keyId: 'key_eu', endUser: 'alice', costNano: 200, createdAt: at(12) }),
        usageRow('req_eu_4', { keyId: 'key_eu', endUser: null, costNano: 50, createdAt: at(13) }),
      ]);
      const alice = await store.queryUsage({ keyId: 'key_eu', endUser: 'alice', limit: 10 });
      assert.deepEqual(
        alice.rows.map((row) => [row.requestId, row.endUser]),
        [
          ['req_eu_3', 'alice'],
          ['req_eu_1', 'alice'],
        ],
      );
      assert.equal(alice.totals.costNano, 300);
      assert.equal(alice.endUsers, undefined, 'no grouping unless asked');
      const grouped = await store.queryUsage({ keyId: 'key_eu', limit: 0, groupByEndUser: true });
      assert.deepEqual(
        grouped.endUsers?.map((group) => [group.endUser, group.requests, group.costNano]),
        [
          ['bob', 1, 700],
          ['alice', 2, 300],
          [null, 1, 50],
        ],
      );
      assert.equal(grouped.totals.requests, 4);
      const stats = await store.usageStats({ from: at(0), to: at(60), bucketSeconds: 60, groupBy: 'end_user' });
      assert.deepEqual(
        stats.filter((bucket) => bucket.group === 'alice' || bucket.group === 'bob').map((b) => [b.group, b.costNano]),
        [
          ['alice', 300],
          ['bob', 700],
        ],
      );
    });

    test('a key keeps its expiry; a rotation keeps the id and spend, and the old secret until its grace', async () => {
      await store.insertKeyIfAbsent({
        id: 'key_rot',
        hash: '1a'.repeat(32),
        prefix: 'sk-old',
        accountId: 'acme',
        expiresAt: '2030-01-01T00:00:00.000Z',
      });
      await store.recordUsage([usageRow('req_rot_1', { keyId: 'key_rot', costNano: 1234 })]);
      assert.equal((await store.getKey('key_rot'))?.expiresAt, '2030-01-01T00:00:00.000Z');
      assert.equal((await store.getKey('key_rot'))?.previous, null);
      const rotated = await store.rotateKey('key_rot', {
        hash: '1b'.repeat(32),
        prefix: 'sk-new',
        previousExpiresAt: '2029-06-01T00:00:00.000Z',
      });
      assert.equal(rotated?.hash, '1b'.repeat(32));
      assert.deepEqual(rotated?.previous, {
        hash: '1a'.repeat(32),
        prefix: 'sk-old',
        expiresAt: '2029-06-01T00:00:00.000Z',
      });
      assert.equal(rotated?.spentNano, 1234, 'the spend stays with the key');
      const again = await store.rotateKey('key_rot', {
        hash: '1c'.repeat(32),
        prefix: 'sk-newer',
        previousExpiresAt: '2029-07-01T00:00:00.000Z',
      });
      assert.equal(again?.previous?.hash, '1b'.repeat(32), 'only the last replaced secret is kept');
      const patched = await store.updateKey('key_rot', { expiresAt: null });
      assert.equal(patched?.expiresAt, null);
      assert.equal((await store.loadAll()).keys.find((key) => key.id === 'key_rot')?.hash, '1c'.repeat(32));
      await store.updateKey('key_rot', { status: 'deleted' });
      assert.equal(
        await store.rotateKey('key_rot', { hash: '1d'.repeat(32), prefix: 'x', previousExpiresAt: at(1) }),
        undefined,
      );
    });

    test('usage queries filter by node, status and request id', async () => {
      await store.recordUsage([
        usageRow('req_err', {
          createdAt: at(5),
          node: 'other-node',
          status: 502,
          errorCode: 'upstream_error',
          costNano: 0,
        }),
      ]);
      const ids = async (filter: Omit<UsageFilter, 'limit'>) =>
        (await store.queryUsage({ ...filter, limit: 10 })).rows.map((row) => row.requestId);
      assert.deepEqual(await ids({ node: 'other-node' }), ['req_err']);
      assert.deepEqual(await ids({ status: 'error' }), ['req_err']);
      assert.deepEqual(await ids({ status: 502 }), ['req_err']);
      assert.deepEqual(await ids({ status: 'ok', keyId: 'key_a' }), ['req_3', 'req_2', 'req_1']);
      assert.deepEqual(await ids({ requestId: 'req_2' }), ['req_2']);
      assert.deepEqual(await ids({ requestId: 'req_nope' }), []);
    });

    test('usage stats: time buckets with requests, errors, latency percentiles, tokens and cost, by model and by node', async () => {
      const minute = (m: number, s: number) => new Date(Date.UTC(2026, 1, 1, 10, m, s)).toISOString();
      const row = (id: string, fields: Partial<UsageRow>) =>
        usageRow(id, { accountId: null, keyId: 'key_stats', ...fields });
      await store.recordUsage([
        row('st_1', { createdAt: minute(0, 5), model: 'a', node: 'n1', latencyMs: 10, costNano: 100 }),
        row('st_2', { createdAt: minute(0, 30), model: 'a', node: 'n2', latencyMs: 20, status: 502, costNano: 0 }),
        row('st_3', { createdAt: minute(0, 50), model: 'b', node: 'n1', latencyMs: 40, costNano: 300 }),
        row('st_4', { createdAt: minute(1, 10), model: 'a', node: null, latencyMs: 30, costNano: 50 }),
        row('st_5', { createdAt: minute(2, 0), model: 'a', latencyMs: 99 }),
        row('st_6', { createdAt: new Date(Date.UTC(2026, 1, 1, 9, 59, 59)).toISOString(), latencyMs: 99 }),
      ]);
      const range = { from: minute(0, 0), to: minute(2, 0), bucketSeconds: 60 };
      const near = (actual: number, expected: number, what: string) =>
        assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);
      const summary = (buckets: UsageStatsBucket[]) =>
        buckets.map((bucket) => [bucket.start, bucket.group, bucket.requests, bucket.errors, bucket.costNano]);

      const all = await store.usageStats(range);
      assert.deepEqual(summary(all), [
        [minute(0, 0), null, 3, 1, 400],
        [minute(1, 0), null, 1, 0, 50],
      ]);
      const first = all[0] as UsageStatsBucket;
      near(first.latencyP50Ms, 20, 'p50 of 10, 20, 40');
      near(first.latencyP95Ms, 38, 'p95 of 10, 20, 40 (interpolated)');
      assert.equal(first.promptTokens, 30);
      assert.equal(first.completionTokens, 15);
      assert.equal(first.reasoningTokens, 3);
      near((all[1] as UsageStatsBucket).latencyP95Ms, 30, 'one row: its latency');

      const byModel = await store.usageStats({ ...range, groupBy: 'model' });
      assert.deepEqual(summary(byModel), [
        [minute(0, 0), 'a', 2, 1, 100],
        [minute(0, 0), 'b', 1, 0, 300],
        [minute(1, 0), 'a', 1, 0, 50],
      ]);
      near((byModel[0] as UsageStatsBucket).latencyP95Ms, 19.5, 'p95 of 10, 20');

      const byNode = await store.usageStats({ ...range, groupBy: 'node' });
      assert.deepEqual(summary(byNode), [
        [minute(0, 0), 'n1', 2, 0, 400],
        [minute(0, 0), 'n2', 1, 1, 0],
        [minute(1, 0), null, 1, 0, 50],
      ]);
      assert.deepEqual(
        await store.usageStats({ from: minute(5, 0), to: minute(6, 0), bucketSeconds: 60 }),
        [],
        'an empty range: no buckets',
      );
    });

    test("a key's end users with spend in given windows: highest first, bounded, nothing else", async () => {
      const day = { period: 'day' as const, start: '2026-02-02T00:00:00.000Z' };
      const month = { period: 'month' as const, start: '2026-02-01T00:00:00.000Z' };
      const yesterday = { period: 'day' as const, start: '2026-02-01T00:00:00.000Z' };
      const window = (endUser: string | null, of: { period: 'day' | 'month'; start: string }, ownerId = 'key_a') => ({
        ownerKind: 'key' as const,
        ownerId,
        endUser,
        ...of,
      });
      await store.recordUsage([
        usageRow('req_eu1', {
          endUser: 'bob',
          costNano: 300,
          budgetWindows: [window('bob', day), window(null, month)],
        }),
        usageRow('req_eu2', { endUser: 'alice', costNano: 500, budgetWindows: [window('alice', day)] }),
        usageRow('req_eu3', { endUser: 'carol', costNano: 200, budgetWindows: [window('carol', month)] }),
        // Not in the windows asked about, or not this key's, or the key's own: never listed.
        usageRow('req_eu4', { endUser: 'dave', costNano: 900, budgetWindows: [window('dave', yesterday)] }),
        usageRow('req_eu5', { endUser: 'erin', costNano: 900, budgetWindows: [window('erin', day, 'key_other')] }),
      ]);
      assert.deepEqual(await store.endUsersWithSpend('key_a', [day, month], 10), ['alice', 'bob', 'carol']);
      assert.deepEqual(await store.endUsersWithSpend('key_a', [day], 10), ['alice', 'bob']);
      assert.deepEqual(await store.endUsersWithSpend('key_a', [day, month], 1), ['alice']);
      assert.deepEqual(await store.endUsersWithSpend('key_a', [], 10), []);
      assert.deepEqual(await store.endUsersWithSpend('key_nobody', [day, month], 10), []);
    });
  });
}
