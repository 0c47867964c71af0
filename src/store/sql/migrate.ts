import { MIGRATIONS, type Migration } from './migrations.js';
import type { SqlDriver } from './sql-driver.js';

/**
 * Brings the schema up to date: applies, in order, every migration whose version is not in
 * `switchyard_migrations`, each in its own transaction under a lock, so instances starting
 * together apply each migration once. Returns the versions applied now.
 */
export async function migrate(driver: SqlDriver, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await driver.exec(`
    CREATE TABLE IF NOT EXISTS switchyard_migrations (
      version     integer PRIMARY KEY,
      name        text NOT NULL,
      applied_at  timestamptz NOT NULL DEFAULT now()
    )`);
  const applied: number[] = [];
  for (const migration of migrations) {
    const done = await driver.transaction(async (tx) => {
      await driver.lockForMigrations(tx);
      const rows = await tx.query('SELECT 1 FROM switchyard_migrations WHERE version = $1', [migration.version]);
      if (rows.length > 0) return false;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO switchyard_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
