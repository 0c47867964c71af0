import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * The stores a money suite runs against: the embedded PGlite and a real PostgreSQL.
 *
 * - PGlite: one data directory per test file (copied from a template initialised once
 *   per machine and PGlite version, because initdb takes seconds and a copy 0.3 s); tests
 *   in a file share it and keep apart by using their own account ids and keys.
 * - PostgreSQL: `$SWITCHYARD_TEST_PG_URL` or postgres://127.0.0.1:5432/test, with a schema
 *   of its own per file and run, dropped (CASCADE) by `cleanup`. When the server cannot be
 *   reached the backend is skipped with a loud message naming what is missing, except
 *   with CI=true, where that is a failure.
 */
export interface StoreBackend {
  readonly name: 'pglite' | 'postgres';
  /** The `store:` setting (also usable as the CLI's --store). */
  readonly store: string;
  /** A journal directory of this backend's own. */
  readonly journalDir: string;
  /** Why the suite is skipped on this backend; undefined: it runs. */
  readonly skip: string | undefined;
  /** Removes what the backend made (the PGlite directory, the Postgres schema). */
  cleanup(): Promise<void>;
}

export const POSTGRES_BASE_URL = postgresBaseUrl();

/** Trust auth still needs a user name: without one in the URL or the environment, `postgres`. */
function postgresBaseUrl(): string {
  const url = new URL(process.env.SWITCHYARD_TEST_PG_URL ?? 'postgres://127.0.0.1:5432/test');
  if (url.username === '' && !process.env.PGUSER && !process.env.USER) url.username = 'postgres';
  return url.toString();
}

function pgliteVersion(): string {
  try {
    const file = join(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** A PGlite directory that has been through initdb, made once and renamed into place atomically. */
async function pgliteTemplate(): Promise<string> {
  const template = join(tmpdir(), `switchyard-pglite-template-${pgliteVersion()}`);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  const scratch = mkdtempSync(join(tmpdir(), 'switchyard-pglite-init-'));
  const dataDir = join(scratch, 'data');
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ dataDir });
  await db.query('SELECT 1');
  await db.close();
  try {
    renameSync(dataDir, template);
  } catch {
    // Another test file made it first.
  }
  rmSync(scratch, { recursive: true, force: true });
  if (!existsSync(join(template, 'PG_VERSION'))) throw new Error(`PGlite template ${template} was not created`);
  return template;
}

async function pgliteBackend(label: string): Promise<StoreBackend> {
  const root = mkdtempSync(join(tmpdir(), `switchyard-${label}-pglite-`));
  const dataDir = join(root, 'data');
  cpSync(await pgliteTemplate(), dataDir, { recursive: true });
  const journalDir = join(root, 'journal');
  mkdirSync(journalDir);
  return {
    name: 'pglite',
    store: `pglite:${dataDir}`,
    journalDir,
    skip: undefined,
    cleanup: async () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Runs one statement on the test database (outside any Switchyard schema). */
export async function postgresQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_BASE_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A PostgreSQL schema of the test's own (several gateways may share it), or a loud skip. */
export async function postgresBackend(label: string): Promise<StoreBackend> {
  const schema = `sy_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}_${Date.now().toString(36)}`;
  const url = new URL(POSTGRES_BASE_URL);
  url.searchParams.set('schema', schema);
  const root = mkdtempSync(join(tmpdir(), `switchyard-${label}-pg-`));
  const journalDir = join(root, 'journal');
  mkdirSync(journalDir);
  let skip: string | undefined;
  try {
    await postgresQuery('SELECT 1');
  } catch (error) {
    const what = `PostgreSQL at ${POSTGRES_BASE_URL} is unreachable (${(error as Error).message}); set SWITCHYARD_TEST_PG_URL or start a server with database "test" and trust auth`;
    if (process.env.CI === 'true') throw new Error(`${what}. CI=true: the Postgres suite must run.`, { cause: error });
    skip = `SKIPPED: ${what}`;
    process.stderr.write(`\n${'!'.repeat(100)}\n!!! ${label}: ${skip}\n${'!'.repeat(100)}\n\n`);
  }
  return {
    name: 'postgres',
    store: url.toString(),
    journalDir,
    skip,
    cleanup: async () => {
      rmSync(root, { recursive: true, force: true });
      if (skip === undefined) await postgresQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

/** Both backends, for a test file named `label` (used in directory and schema names). */
export async function storeBackends(label: string): Promise<StoreBackend[]> {
  return [await pgliteBackend(label), await postgresBackend(label)];
}
