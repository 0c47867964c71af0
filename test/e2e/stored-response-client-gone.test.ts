import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { admin } from '../support/admin-client.js';
import { POSTGRES_BASE_URL, postgresBackend } from '../support/store-backends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// A stored Responses reply goes out once the store kept it (rule B5). A client that leaves
// while the save waits got nothing: its log line says 499, as its request record, metrics and
// trace do. The save is held by a lock the test takes on the real `responses` table of
// PostgreSQL, so the gateway's INSERT waits as it would behind a slow or busy database.

const API_KEY = 'sk-e2e-stored-client-gone-0123456789';
const ADMIN_KEY = 'admin-stored-client-gone-0123456789';
const TIMEOUT = { timeout: 20_000 };

const postgres = await postgresBackend('stored-client-gone');
after(() => postgres.cleanup());

describe('a client that leaves while its stored response is saved', { skip: postgres.skip }, () => {
  const schema = new URL(postgres.store).searchParams.get('schema') as string;
  let gateway: TestGateway;
  /** Holds the lock on the responses table. */
  let locker: pg.Client;
  /** Watches for the save waiting (another session: one in a transaction sees a snapshot of the activity). */
  let watcher: pg.Client;

  before(async () => {
    gateway = await startTestGateway(`
store: ${postgres.store}
usage: { journal_dir: ${postgres.journalDir} }
admin_key: ${ADMIN_KEY}
request_log: { flush_interval_ms: 50 }
nodes:
  - { id: sim, provider: simulated }
models:
  - { id: m, routes: [{ node: sim }] }
keys:
  - { key: ${API_KEY} }
`);
    locker = new pg.Client({ connectionString: POSTGRES_BASE_URL });
    watcher = new pg.Client({ connectionString: POSTGRES_BASE_URL });
    await Promise.all([locker.connect(), watcher.connect()]);
  });

  after(async () => {
    await locker?.query('ROLLBACK').catch(() => undefined);
    await Promise.all([locker?.end(), watcher?.end()]);
    await gateway?.close();
  });

  /** True once the gateway's save (its INSERT into responses) waits for the test's lock. */
  const saveIsWaiting = async (): Promise<boolean> => {
    const { rows } = await watcher.query<{ query: string }>(
      `SELECT activity.query FROM pg_locks JOIN pg_stat_activity activity ON activity.pid = pg_locks.pid
       WHERE pg_locks.relation = $1::regclass AND NOT pg_locks.granted`,
      [`${schema}.responses`],
    );
    return rows.some((row) => row.query.includes('INSERT INTO responses'));
  };

  test('the log line has "status":499, like the request record', TIMEOUT, async () => {
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${schema}.responses IN ACCESS EXCLUSIVE MODE`);
    const controller = new AbortController();
    const pending = fetch(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', input: 'Hi', store: true }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await waitFor(saveIsWaiting, 5000, { what: 'the save to wait for the lock' });
    controller.abort();
    assert.ok((await pending) instanceof Error, 'the client left without an answer');

    const isLine = (line: { msg?: string; path?: unknown }) => line.msg === 'request' && line.path === '/v1/responses';
    await waitFor(() => gateway.logs().some(isLine), 5000, { what: 'the log line' });
    const line = gateway.logs().find(isLine);
    assert.equal(line?.client_aborted, true);
    assert.deepEqual(
      line?.attempts?.map((attempt) => attempt.status),
      [200],
      'the node had answered',
    );
    assert.equal(line?.status, 499, JSON.stringify(line));
    assert.equal(line?.error_code, 'client_aborted');

    const requestId = String(line?.request_id);
    let record: { status?: number; error_code?: string } | undefined;
    await waitFor(
      async () => {
        const answer = await admin(gateway.origin, 'GET', `/requests/${requestId}`, ADMIN_KEY);
        record = answer.status === 200 ? (answer.body as typeof record) : undefined;
        return record !== undefined;
      },
      5000,
      { what: 'the request record' },
    );
    assert.equal(record?.status, 499);
    assert.equal(record?.error_code, 'client_aborted');

    // The lock released, the save goes on: the response is kept though its client left.
    await locker.query('ROLLBACK');
    const responseId = `resp_${requestId.slice('req_'.length)}`;
    await waitFor(
      async () => {
        const answer = await fetch(`${gateway.baseUrl}/responses/${responseId}`, {
          headers: { authorization: `Bearer ${API_KEY}` },
        });
        await answer.arrayBuffer();
        return answer.status === 200;
      },
      5000,
      { what: 'the response to be stored' },
    );
  });
});
