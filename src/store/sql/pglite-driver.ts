import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { SqlDriver, SqlQueryable } from './sql-driver.js';

function wrap(target: PGlite | Transaction): SqlQueryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      return (await target.query<Row>(sql, params as unknown[])).rows;
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  };
}

/**
 * PostgreSQL settings for this process only (not written to the data directory).
 * shared_buffers: PGlite's initdb sets 160 MB, and PostgreSQL initialises the whole pool
 * inside the WebAssembly memory at start, so it was ~110 MiB of the gateway's RSS (measured:
 * 245 -> 125 MiB anonymous RSS after opening the store). The store holds keys, accounts
 * and an append-only usage ledger written in batches; 16 MB keeps their working set cached.
 */
const SERVER_SETTINGS = ['-c', 'shared_buffers=16MB'];

/**
 * The embedded store: PostgreSQL compiled to WebAssembly, data in a local directory
 * (`pglite:./dir`), one process at a time. The first start of a new directory runs initdb
 * (a few seconds); later starts open it in about 0.3 s.
 */
export async function openPgliteDriver(dataDir: string | undefined): Promise<SqlDriver> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ ...(dataDir === undefined ? {} : { dataDir }), startParams: [...PGlite.defaultStartParams, ...SERVER_SETTINGS] });
  const root = wrap(db);
  return {
    query: root.query,
    exec: root.exec,
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    // One process owns the directory: nobody to race.
    lockForMigrations: async () => undefined,
    async listen(channel, onPayload) {
      await db.listen(channel, onPayload);
    },
    close: () => db.close(),
  };
}
