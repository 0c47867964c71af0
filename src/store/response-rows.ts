/**
 * A stored response as the store keeps it: its Response object and input items as JSON
 * text (serialized once, by the caller that measured them), and when it stops being
 * visible. Times are unix milliseconds.
 */
export interface ResponseRow {
  readonly id: string;
  readonly accountId: string;
  readonly createdAtMs: number;
  readonly expiresAtMs: number;
  readonly model: string;
  readonly node: string | null;
  readonly previousResponseId: string | null;
  /** The Response object, JSON. */
  readonly responseJson: string;
  /** The input items, a JSON array. */
  readonly inputItemsJson: string;
}

/**
 * The `responses` table (migration 7) or its in-memory stand-in: rows scoped by account,
 * invisible once expired. Retention and size policy are the caller's (src/responses-state).
 */
export interface ResponseRows {
  /** Inserts or replaces the row with this id. */
  put(row: ResponseRow): Promise<void>;
  /** The row when it exists, belongs to `accountId` and has not expired. */
  get(accountId: string, id: string): Promise<ResponseRow | undefined>;
  /** Deletes the row when it exists, belongs to `accountId` and has not expired; true when it did. */
  delete(accountId: string, id: string): Promise<boolean>;
  /** Deletes up to `limit` expired rows; returns how many. */
  sweep(limit: number): Promise<number>;
}
