import type { PGlite, Transaction } from '@electric-sql/pglite';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SqlDriver, SqlQueryable } from './sql-driver.js';
import { fieldOf } from '../../validation/field-of.js';

const execFileAsync = promisify(execFile);

function wrap(target: PGlite | Transaction): SqlQueryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      return (await target.query<Row>(sql, [...params])).rows;
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
 * initdb of a new data directory, in a short-lived child process. initdb grows PGlite's
 * WebAssembly memory to about 730 MiB, and WebAssembly memory never shrinks: done in the
 * gateway itself, the first start on a fresh clone kept that RSS for the life of the
 * process, where opening an existing directory takes about 220 MiB. PostgreSQL's own
 * marker of an initialised directory (`PG_VERSION`, which PGlite checks too) says
 * whether it is needed.
 */
async function initializeDataDirectory(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const script =
    `const { PGlite } = await import(${JSON.stringify(import.meta.resolve('@electric-sql/pglite'))});` +
    `const db = await PGlite.create({ dataDir: ${JSON.stringify(dataDir)} }); await db.close();`;
  try {
    await execFileAsync(process.execPath, ['--input-type=module', '--eval', script], { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const stderr = String(fieldOf(error, 'stderr') ?? '').trim();
    throw new Error(
      `could not initialise the embedded store in ${dataDir}${stderr === '' ? '' : `: ${stderr.split('\n').slice(-3).join(' ')}`}`,
      { cause: error },
    );
  }
}

/**
 * The embedded store: PostgreSQL compiled to WebAssembly, data in a local directory
 * (`pglite:./dir`), one process at a time. The first start of a new directory runs initdb
 * (a few seconds, in a child process); later starts open it in about 0.3 s. Without a
 * directory (tests) the database lives in memory.
 */
export async function openPgliteDriver(dataDir: string | undefined): Promise<SqlDriver> {
  if (dataDir !== undefined) await initializeDataDirectory(dataDir);
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({
    ...(dataDir === undefined ? {} : { dataDir }),
    startParams: [...PGlite.defaultStartParams, ...SERVER_SETTINGS],
  });
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
