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
 * The embedded store: PostgreSQL compiled to WebAssembly, data in a local directory
 * (`pglite:./dir`), one process at a time. The first start of a new directory runs initdb
 * (a few seconds); later starts open it in about 0.3 s.
 */
export async function openPgliteDriver(dataDir: string | undefined): Promise<SqlDriver> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir === undefined ? undefined : { dataDir });
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
