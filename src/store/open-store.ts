import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isProcessAlive } from './is-process-alive.js';
import { MemoryStore } from './memory/memory-store.js';
import { SqlStore } from './sql/sql-store.js';
import type { Store } from './store.js';

/** The `store` setting: `memory`, `pglite:<dir>` (embedded) or `postgres://…`. */
export type StoreLocation =
  | { readonly kind: 'memory' }
  | { readonly kind: 'pglite'; readonly dataDir: string }
  | { readonly kind: 'postgres'; readonly url: string };

export function parseStoreLocation(setting: string): StoreLocation {
  if (setting === 'memory') return { kind: 'memory' };
  if (setting.startsWith('pglite:'))
    return { kind: 'pglite', dataDir: resolve(setting.slice('pglite:'.length) || './.switchyard/data') };
  if (/^postgres(ql)?:\/\//.test(setting)) return { kind: 'postgres', url: setting };
  throw new Error(`"${setting}" is not a store: use memory, pglite:<directory> or postgres://…`);
}

/** The same URL with any password replaced, for logs and errors. */
export function describeStoreLocation(location: StoreLocation): string {
  if (location.kind === 'memory') return 'memory (nothing is kept after exit)';
  if (location.kind === 'pglite') return `pglite:${location.dataDir}`;
  const url = new URL(location.url);
  if (url.password !== '') url.password = '***';
  return url.toString();
}

/** The embedded store's directory is in use by another live process (a running gateway). Matched by `code`. */
export class StoreBusyError extends Error {
  readonly code = 'store_busy';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    /** What to do about it, for the one line the CLI prints. */
    hint?: string,
  ) {
    super(`the embedded store ${dataDir} is in use by process ${pid}${hint === undefined ? '' : `; ${hint}`}`);
  }
}

/** PGlite is single-process: a pid file marks the directory's owner; a dead owner's file is taken over. */
function claimDirectory(dataDir: string): () => void {
  const lockFile = join(dataDir, 'switchyard.pid');
  let owner: number | undefined;
  try {
    owner = Number(readFileSync(lockFile, 'utf8').trim());
  } catch {
    owner = undefined;
  }
  if (owner !== undefined && owner !== process.pid && Number.isInteger(owner) && owner > 0 && isProcessAlive(owner)) {
    throw new StoreBusyError(dataDir, owner);
  }
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}

/** Opens the store and brings its schema up to date. */
export async function openStore(location: StoreLocation): Promise<Store> {
  const description = describeStoreLocation(location);
  switch (location.kind) {
    case 'memory':
      return new MemoryStore();
    case 'pglite': {
      mkdirSync(location.dataDir, { recursive: true });
      const release = claimDirectory(location.dataDir);
      try {
        // The drivers are loaded for the store that needs them: `pg` alone is ~15 MiB of RSS a memory store never uses.
        const { openPgliteDriver } = await import('./sql/pglite-driver.js');
        const driver = await openPgliteDriver(location.dataDir);
        const close = driver.close;
        driver.close = async () => {
          await close();
          release();
        };
        return await SqlStore.open('pglite', description, driver);
      } catch (error) {
        release();
        throw error;
      }
    }
    case 'postgres': {
      const { openPgDriver } = await import('./sql/pg-driver.js');
      return SqlStore.open('postgres', description, await openPgDriver(location.url));
    }
  }
}
