/** Handed to a `listen` callback instead of a payload after the listening connection was re-made. */
export const RECONNECTED = '\u0000reconnected';

/** The little a SQL store needs from a PostgreSQL-speaking connection. */
export interface SqlQueryable {
  /** One statement with `$1…` parameters; rows as objects keyed by column name. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface SqlDriver extends SqlQueryable {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /** Serializes concurrent migrators (other instances) until the transaction ends. */
  lockForMigrations(tx: SqlQueryable): Promise<void>;
  /** Subscribes to NOTIFY on `channel`. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<void>;
  close(): Promise<void>;
}
