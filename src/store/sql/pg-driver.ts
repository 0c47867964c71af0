import { RECONNECTED, type SqlDriver, type SqlQueryable } from './sql-driver.js';

/** Splits Switchyard's own `schema` parameter off a postgres:// URL. */
export function parsePostgresUrl(url: string): { connectionString: string; schema: string | undefined } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) {
    throw new Error(`the schema "${schema}" is not a plain SQL identifier`);
  }
  return { connectionString: parsed.toString(), schema };
}

/**
 * PostgreSQL through node-postgres: a small pool for batches and admin work, plus one
 * dedicated connection for LISTEN. `?schema=name` puts every table in that schema
 * (created when missing), so several deployments or test runs can share a database.
 */
export async function openPgDriver(url: string): Promise<SqlDriver> {
  const { default: pg } = await import('pg');
  // bigint columns hold nano-USD: parse them as numbers (exact below 2^53 nano-USD, about 9 million USD).
  pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
  const { connectionString, schema } = parsePostgresUrl(url);
  const options = schema === undefined ? undefined : `-c search_path=${schema}`;
  if (schema !== undefined) {
    const bootstrap = new pg.Client({ connectionString });
    await bootstrap.connect();
    try {
      await bootstrap.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await bootstrap.end();
    }
  }
  const pool = new pg.Pool({
    connectionString,
    options,
    max: 4,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  let listener: InstanceType<typeof pg.Client> | undefined;
  let closed = false;

  const wrap = (target: {
    query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }>;
  }): SqlQueryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      return (await target.query(sql, [...params])).rows as Row[];
    },
    async exec(sql: string) {
      await target.query(sql);
    },
  });
  const root = wrap(pool);
  return {
    query: root.query,
    exec: root.exec,
    async transaction(work) {
      const client = await pool.connect();
      let broken: Error | undefined;
      // The pool listens for errors of idle connections only: one dropped mid-transaction
      // would otherwise be an unhandled 'error' event (a crash). The failing query rejects.
      const onError = (error: Error) => (broken = error);
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await work(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // A connection that cannot even roll back is dropped, not handed to the next transaction.
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
    async lockForMigrations(tx) {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('switchyard_migrations'))");
    },
    async listen(channel, onPayload) {
      // A dedicated connection; when it drops (PostgreSQL restarted or unreachable) it is
      // re-made every second until it is back, and `onReconnect` lets the caller reload
      // what it may have missed.
      const connect = async (): Promise<void> => {
        const client = new pg.Client({ connectionString, options });
        client.on('notification', (message) => {
          if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
        });
        client.on('error', () => undefined);
        client.on('end', () => {
          if (listener !== client || closed) return;
          listener = undefined;
          const retry = () => {
            if (closed) return;
            connect().then(
              () => onPayload(RECONNECTED),
              () => setTimeout(retry, 1000).unref(),
            );
          };
          setTimeout(retry, 1000).unref();
        });
        await client.connect();
        await client.query(`LISTEN ${channel}`);
        listener = client;
      };
      await connect();
    },
    async close() {
      closed = true;
      await listener?.end().catch(() => undefined);
      await pool.end();
    },
  };
}
