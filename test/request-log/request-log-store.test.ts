import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { AdminService } from '../../src/admin/admin-service.js';
import { runAdminOperation } from '../../src/admin/admin-operations.js';
import { openStore, parseStoreLocation } from '../../src/store/open-store.js';
import type { RequestAttemptRow, RequestLogRow } from '../../src/store/request-log-rows.js';
import type { Store } from '../../src/store/store.js';
import { storeBackends } from '../support/store-backends.js';

// The request record's store contract (PRODUCT decision 28) on memory, PGlite and
// PostgreSQL: what the writer inserts, read back through the admin operations (the same
// table the admin API and the CLI run): filters, cursor paging over more rows than a page,
// stats, the unauthenticated counts, retention, the row cap and the body retention.

const backends = await storeBackends('request-log');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

const cases = [
  { name: 'memory', store: 'memory', skip: undefined as string | undefined },
  ...backends.map((backend) => ({ name: backend.name, store: backend.store, skip: backend.skip })),
];

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** A fixed hour, so buckets are known: 2026-03-01T10:00:00Z. */
const BASE = Date.parse('2026-03-01T10:00:00.000Z');

function attempt(node: string, status: number | null, errorCode: string | null, startedMs: number): RequestAttemptRow {
  return { node, status, errorCode, startedMs, firstByteMs: status === null ? null : 12.5, totalMs: 30.25 };
}

/** Row `index`: every 7th a 404, every 11th a failover, doors and keys in turn; one per 10 s from BASE. */
function row(index: number, fields: Partial<RequestLogRow> = {}): RequestLogRow {
  const notFound = index % 7 === 0;
  const failover = !notFound && index % 11 === 0;
  return {
    id: `req_${String(index).padStart(5, '0')}`,
    correlationId: `corr-${index}`,
    timeMs: BASE + index * 10_000,
    door: (['chat', 'messages', 'responses'] as const)[index % 3] as string,
    method: 'POST',
    path: '/v1/chat/completions',
    status: notFound ? 404 : 200,
    errorCode: notFound ? 'model_unavailable' : null,
    keyId: index % 2 === 0 ? 'key_even' : 'key_odd',
    keyPrefix: 'sk-test',
    accountId: index % 2 === 0 ? 'acct-even' : null,
    endUser: index % 5 === 0 ? 'alice' : null,
    model: notFound ? 'nope' : index % 4 === 0 ? 'alias-fast' : 'm-small',
    modelServed: notFound ? null : 'm-small',
    node: notFound ? null : 'n2',
    affinity: null,
    stream: index % 2 === 1,
    attempts: notFound
      ? []
      : failover
        ? [attempt('n1', 500, 'bad_gateway', 1), attempt('n2', 200, null, 32)]
        : [attempt('n2', 200, null, 1)],
    usage: notFound ? null : { promptTokens: 10, completionTokens: 5, cachedTokens: 0, reasoningTokens: 0 },
    costUsd: notFound ? null : 0.0001,
    firstByteMs: notFound ? null : index,
    totalMs: 40,
    traceId: null,
    requestBody: null,
    replyBody: null,
    ...fields,
  };
}

const ROWS = 120;

for (const backend of cases) {
  describe(`request log store contract: ${backend.name}`, { skip: backend.skip }, () => {
    let store: Store;
    const call = async (path: string) =>
      (await runAdminOperation(new AdminService(store), 'GET', `/admin/v1${path}`)) as Record<string, unknown>;
    const ids = (page: Record<string, unknown>) => (page.data as Array<{ id: string }>).map((record) => record.id);

    test('insert, then filters and cursor paging', async () => {
      store = await openStore(parseStoreLocation(backend.store));
      const rows = Array.from({ length: ROWS }, (_, index) => row(index));
      // Two batches, out of time order; a repeated id is skipped.
      await store.requestLog.insert(rows.slice(60), []);
      await store.requestLog.insert([...rows.slice(0, 60), rows[5] as RequestLogRow], []);

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await call(`/requests?limit=50${cursor === null ? '' : `&cursor=${cursor}`}`);
        seen.push(...ids(page));
        cursor = page.next_cursor as string | null;
        pages++;
      } while (cursor !== null);
      assert.equal(pages, 3);
      assert.deepEqual(seen, rows.map((each) => each.id).reverse(), 'every row once, newest first');

      const fourxx = await call('/requests?status=4xx&limit=500');
      assert.deepEqual(
        ids(fourxx),
        rows
          .filter((each) => each.status === 404)
          .map((each) => each.id)
          .reverse(),
      );
      assert.deepEqual(ids(await call('/requests?status=404&limit=500')), ids(fourxx));
      assert.deepEqual(ids(await call('/requests?error_code=model_unavailable&limit=500')), ids(fourxx));
      const expect = (predicate: (each: RequestLogRow) => boolean) =>
        rows
          .filter(predicate)
          .map((each) => each.id)
          .reverse();
      assert.deepEqual(
        ids(await call('/requests?key=key_odd&limit=500')),
        expect((each) => each.keyId === 'key_odd'),
      );
      assert.deepEqual(
        ids(await call('/requests?account=acct-even&limit=500')),
        expect((each) => each.accountId === 'acct-even'),
      );
      assert.deepEqual(
        ids(await call('/requests?end_user=alice&limit=500')),
        expect((each) => each.endUser === 'alice'),
      );
      assert.deepEqual(
        ids(await call('/requests?model=alias-fast&limit=500')),
        expect((each) => each.model === 'alias-fast'),
        'the model asked',
      );
      assert.deepEqual(
        ids(await call('/requests?model=m-small&limit=500')),
        expect((each) => each.modelServed === 'm-small'),
        'the model served',
      );
      assert.deepEqual(
        ids(await call('/requests?node=n1&limit=500')),
        expect((each) => each.attempts.some((one) => one.node === 'n1')),
        'a node of any attempt',
      );
      assert.deepEqual(
        ids(await call('/requests?door=messages&limit=500')),
        expect((each) => each.door === 'messages'),
      );
      const from = new Date(BASE + 100_000).toISOString();
      assert.deepEqual(
        ids(await call(`/requests?from=${from}&to=${BASE + 200_000}&limit=500`)),
        expect((each) => each.timeMs >= BASE + 100_000 && each.timeMs < BASE + 200_000),
        'ISO and epoch-ms times',
      );
      // Filters combine, and paging keeps them.
      const combined = expect((each) => each.keyId === 'key_even' && each.status === 200);
      const first = await call('/requests?key=key_even&status=2xx&limit=10');
      const second = await call(`/requests?key=key_even&status=2xx&limit=10&cursor=${first.next_cursor as string}`);
      assert.deepEqual([...ids(first), ...ids(second)], combined.slice(0, 20));

      const failover = (await call('/requests/req_00011')) as Record<string, unknown>;
      assert.deepEqual(failover.attempts, [
        { node: 'n1', status: 500, error_code: 'bad_gateway', started_ms: 1, first_byte_ms: 12.5, total_ms: 30.25 },
        { node: 'n2', status: 200, error_code: null, started_ms: 32, first_byte_ms: 12.5, total_ms: 30.25 },
      ]);
      assert.equal(failover.time, new Date(BASE + 110_000).toISOString());
      assert.deepEqual(failover.usage, {
        prompt_tokens: 10,
        completion_tokens: 5,
        cached_tokens: 0,
        reasoning_tokens: 0,
      });
      assert.equal(failover.request_body, null);
    });

    test('bad query parameters are 400 naming the parameter; an unknown id is 404', async () => {
      for (const [query, param] of [
        ['status=6xx', 'status'],
        ['limit=501', 'limit'],
        ['cursor=%%%', 'cursor'],
        ['from=yesterday', 'from'],
        ['door=fax', 'door'],
      ] as const) {
        await assert.rejects(call(`/requests?${query}`), (error: { status?: number; param?: string }) => {
          assert.equal(error.status, 400, query);
          assert.equal(error.param, param);
          return true;
        });
      }
      await assert.rejects(call('/requests/req_nope'), (error: { status?: number; code?: string }) => {
        assert.equal(error.status, 404);
        assert.equal(error.code, 'not_found');
        return true;
      });
    });

    test('stats: buckets, status classes, error codes, first-byte percentiles, totals', async () => {
      const stats = await call(`/requests/stats?from=${BASE}&to=${BASE + 20 * MINUTE}&bucket=600`);
      const buckets = stats.buckets as Array<Record<string, unknown>>;
      assert.equal(buckets.length, 2, 'two 10-minute buckets');
      const rows = Array.from({ length: ROWS }, (_, index) => row(index));
      const inFirst = rows.filter((each) => each.timeMs < BASE + 10 * MINUTE);
      const first = buckets[0] as Record<string, unknown>;
      assert.equal(first.start, new Date(BASE).toISOString());
      assert.equal(first.requests, inFirst.length);
      const errors = inFirst.filter((each) => each.status === 404).length;
      assert.deepEqual(first.status_classes, { '2xx': inFirst.length - errors, '4xx': errors, '5xx': 0 });
      assert.deepEqual(first.error_codes, { model_unavailable: errors });
      // First-byte ms of the first bucket's successes are their indexes: interpolated percentiles.
      const firstBytes = inFirst.filter((each) => each.firstByteMs !== null).map((each) => each.firstByteMs as number);
      const at = (fraction: number) => {
        const position = fraction * (firstBytes.length - 1);
        const low = firstBytes[Math.floor(position)] as number;
        return low + ((firstBytes[Math.ceil(position)] as number) - low) * (position - Math.floor(position));
      };
      assert.equal(first.first_byte_ms_p50, Math.round(at(0.5) * 100) / 100);
      assert.equal(first.first_byte_ms_p95, Math.round(at(0.95) * 100) / 100);
      const totals = stats.totals as Record<string, unknown>;
      const allErrors = rows.filter((each) => each.status === 404).length;
      assert.equal(totals.requests, ROWS);
      assert.equal(totals.errors, allErrors);
      assert.equal(totals.error_rate, Math.round((allErrors / ROWS) * 10_000) / 10_000);
      assert.deepEqual(totals.error_codes, { model_unavailable: allErrors });

      const chatOnly = await call(`/requests/stats?from=${BASE}&to=${BASE + 20 * MINUTE}&bucket=600&door=chat`);
      assert.equal(
        (chatOnly.totals as { requests: number }).requests,
        rows.filter((each) => each.door === 'chat').length,
      );
      const empty = await call(`/requests/stats?from=${BASE - DAY}&to=${BASE - DAY + 3 * MINUTE}`);
      assert.equal((empty.buckets as unknown[]).length, 3, 'empty buckets are there, with zeros');
      assert.equal((empty.totals as { error_rate: number }).error_rate, 0);
    });

    test('requests without a valid key: counts added per address and reason', async () => {
      const now = Date.now();
      await store.requestLog.insert(
        [],
        [
          {
            clientAddress: '10.0.0.1',
            reason: 'invalid_api_key',
            count: 3,
            firstSeenMs: now - 5000,
            lastSeenMs: now - 4000,
          },
          { clientAddress: '10.0.0.2', reason: 'authentication_required', count: 1, firstSeenMs: now, lastSeenMs: now },
        ],
      );
      await store.requestLog.insert(
        [],
        [{ clientAddress: '10.0.0.1', reason: 'invalid_api_key', count: 2, firstSeenMs: now - 1000, lastSeenMs: now }],
      );
      const listed = (await call('/requests/unauthenticated')).data as Array<Record<string, unknown>>;
      assert.deepEqual(listed[0], {
        client_address: '10.0.0.1',
        reason: 'invalid_api_key',
        count: 5,
        first_seen: new Date(now - 5000).toISOString(),
        last_seen: new Date(now).toISOString(),
      });
      assert.equal(listed.length, 2);
    });

    test('purge: retention, the row cap, and bodies kept for less long', async () => {
      const now = Date.now();
      const fresh = (index: number, ageMs: number, bodies = false) =>
        row(1000 + index, {
          id: `fresh_${index}`,
          timeMs: now - ageMs,
          requestBody: bodies ? '{"model":"m"}' : null,
          replyBody: bodies ? '{"choices":[]}' : null,
        });
      await store.requestLog.insert(
        [fresh(1, 10 * DAY), fresh(2, 2 * DAY, true), fresh(3, 1000, true), fresh(4, 2000), fresh(5, 3000)],
        [],
      );
      // Retention 7 days: the synthetic rows of 2026-03 and fresh_1 go; bodies older than a day are cleared.
      const removed = await store.requestLog.purge({
        beforeMs: now - 7 * DAY,
        bodiesBeforeMs: now - DAY,
        maxRows: 1000,
      });
      assert.equal(removed, ROWS + 1);
      assert.deepEqual(ids(await call('/requests?limit=500')), ['fresh_3', 'fresh_4', 'fresh_5', 'fresh_2']);
      const old = (await call('/requests/fresh_2')) as Record<string, unknown>;
      assert.equal(old.request_body, null, 'a body past its retention is cleared, the record stays');
      assert.equal(old.reply_body, null);
      const young = (await call('/requests/fresh_3')) as Record<string, unknown>;
      assert.equal(young.request_body, '{"model":"m"}');
      assert.equal(young.reply_body, '{"choices":[]}');
      // The row cap keeps the newest.
      assert.equal(await store.requestLog.purge({ beforeMs: 0, bodiesBeforeMs: 0, maxRows: 2 }), 2);
      assert.deepEqual(ids(await call('/requests?limit=500')), ['fresh_3', 'fresh_4']);
      await store.close();
    });
  });
}
