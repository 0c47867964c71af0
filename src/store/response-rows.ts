/**
 * A stored response as the store keeps it: its Response object and input items as JSON
 * text (serialized once, by the caller that measured them), and when it stops being
 * visible. Times are unix milliseconds. A row belongs to (accountId, id): two accounts may
 * hold rows with the same id (a native node's id, which the gateway does not choose).
 */
export interface ResponseRow {
  readonly id: string;
  readonly accountId: string;
  readonly createdAtMs: number;
  readonly expiresAtMs: number;
  readonly model: string;
  readonly node: string | null;
  readonly previousResponseId: string | null;
  /** Stored responses in its chain up to and including this one; null when unknown (saved before it was kept). */
  readonly depth: number | null;
  /** The ids of its output items a native node made (not of the gateway's own form), for `item_reference`. */
  readonly itemIds: readonly string[];
  /** The Response object, JSON. */
  readonly responseJson: string;
  /** The input items, a JSON array. */
  readonly inputItemsJson: string;
}

/** What one account's stored responses take: how many, and their JSON in UTF-8 bytes. */
export interface ResponseUsage {
  readonly count: number;
  readonly bytes: number;
}

/** The most one account may hold; a save that finds it full is refused. */
export interface ResponseQuota {
  readonly maxCount: number;
  readonly maxBytes: number;
}

/** How far one chain read may go: rows, and their JSON bytes in all. */
export interface ChainLimits {
  readonly maxRows: number;
  readonly maxBytes: number;
}

/** The UTF-8 bytes of a row's JSON (what quotas and chain limits count). */
export function rowBytes(row: Pick<ResponseRow, 'responseJson' | 'inputItemsJson'>): number {
  return Buffer.byteLength(row.responseJson) + Buffer.byteLength(row.inputItemsJson);
}

/**
 * The `responses` table (migrations 7, 8) or its in-memory stand-in: rows scoped by
 * account, invisible once expired. Retention and size policy are the caller's
 * (src/responses-state).
 */
export interface ResponseRows {
  /**
   * Inserts the row, or replaces this account's row with the same id (never another
   * account's), unless the account's live rows, that one left out, already reach
   * `quota.maxCount` rows or `quota.maxBytes` bytes: then nothing is written. Returns
   * whether it was stored and the account's usage after.
   */
  put(row: ResponseRow, quota: ResponseQuota): Promise<{ stored: boolean; usage: ResponseUsage }>;
  /** The row when it exists, belongs to `accountId` and has not expired. */
  get(accountId: string, id: string): Promise<ResponseRow | undefined>;
  /**
   * The row and its live ancestors of the same account (by `previousResponseId`), newest
   * first, in one read: at most `limits.maxRows` rows, none after the one whose bytes bring
   * the total over `limits.maxBytes`, and only the first when its depth is known and not
   * below `limits.maxRows`. Empty when the row is not there.
   */
  chain(accountId: string, id: string, limits: ChainLimits): Promise<ResponseRow[]>;
  /** Up to `limit` live rows of `accountId` holding an output item with one of these ids (`itemIds`). */
  holdingItems(accountId: string, itemIds: readonly string[], limit: number): Promise<ResponseRow[]>;
  /** The live rows of one account. */
  usage(accountId: string): Promise<ResponseUsage>;
  /** Every row kept (expired ones not yet swept included): the store's size. */
  size(): Promise<ResponseUsage>;
  /** Deletes the row when it exists, belongs to `accountId` and has not expired; true when it did. */
  delete(accountId: string, id: string): Promise<boolean>;
  /** Deletes up to `limit` expired rows; returns how many. */
  sweep(limit: number): Promise<number>;
}
