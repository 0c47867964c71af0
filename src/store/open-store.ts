import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { MemoryStore } from './memory/memory-store.js';
import { openPgDriver } from './sql/pg-driver.js';
import { openPgliteDriver } from './sql/pglite-driver.js';
import { SqlStore } from './sql/sql-store.js';
import type { Store } from './store.js';

/** The `store` setting: `memory`, `pglite:<dir>` (embedded) or `postgres://…`. */
export type StoreLocation =
  | { readonly kind: 'memory' }
  | { readonly kind: 'pglite'; readonly dataDir: string }
  | { readonly kind: 'postgres'; readonly url: string };

export function parseStoreLocation(setting: string): StoreLocation {
  if (setting === 'memory') return { kind: 'memory' };
  if (setting.startsWith('pglite:')) return { kind: 'pglite', dataDir: resolve(setting.slice('pglite:'.length) || './.switchyard/data') };
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

/** Opens the store and brings its schema up to date. */
export async function openStore(location: StoreLocation): Promise<Store> {
  const description = describeStoreLocation(location);
  switch (location.kind) {
    case 'memory':
      return new MemoryStore();
    case 'pglite':
      mkdirSync(location.dataDir, { recursive: true });
      return SqlStore.open('pglite', description, await openPgliteDriver(location.dataDir));
    case 'postgres':
      return SqlStore.open('postgres', description, await openPgDriver(location.url));
  }
}
