import type { ResponseRow, ResponseRows } from '../response-rows.js';

/** How many stored responses a memory store keeps, newest first (older ones are dropped). */
export const MEMORY_KEPT_RESPONSES = 10_000;
/** How many characters of JSON (Response objects and input items) a memory store keeps in all. */
export const MEMORY_KEPT_RESPONSE_CHARS = 128 * 1024 * 1024;

export interface MemoryResponseRowsOptions {
  readonly maxRows?: number;
  readonly maxChars?: number;
}

const sizeOf = (row: ResponseRow) => row.responseJson.length + row.inputItemsJson.length;

/**
 * Stored responses in this process (`store: memory`): bounded by a row count and a total
 * size, dropping the oldest-saved first, besides the expiry every store has.
 */
export class MemoryResponseRows implements ResponseRows {
  /** In saving order: the first entry is the oldest. */
  private readonly rows = new Map<string, ResponseRow>();
  private chars = 0;
  private readonly maxRows: number;
  private readonly maxChars: number;

  constructor(options: MemoryResponseRowsOptions = {}) {
    this.maxRows = options.maxRows ?? MEMORY_KEPT_RESPONSES;
    this.maxChars = options.maxChars ?? MEMORY_KEPT_RESPONSE_CHARS;
  }

  async put(row: ResponseRow): Promise<void> {
    this.remove(row.id);
    this.rows.set(row.id, row);
    this.chars += sizeOf(row);
    for (const [id] of this.rows) {
      if (this.rows.size <= this.maxRows && this.chars <= this.maxChars) break;
      this.remove(id);
    }
  }

  async get(accountId: string, id: string): Promise<ResponseRow | undefined> {
    const row = this.rows.get(id);
    return row !== undefined && row.accountId === accountId && row.expiresAtMs > Date.now() ? row : undefined;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    if ((await this.get(accountId, id)) === undefined) return false;
    this.remove(id);
    return true;
  }

  async sweep(limit: number): Promise<number> {
    const now = Date.now();
    let swept = 0;
    for (const [id, row] of this.rows) {
      if (swept >= limit) break;
      if (row.expiresAtMs > now) continue;
      this.remove(id);
      swept++;
    }
    return swept;
  }

  private remove(id: string): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    this.rows.delete(id);
    this.chars -= sizeOf(row);
  }
}
