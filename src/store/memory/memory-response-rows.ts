import {
  rowBytes,
  type ChainLimits,
  type ResponseQuota,
  type ResponseRow,
  type ResponseRows,
  type ResponseUsage,
} from '../response-rows.js';

/** How many stored responses a memory store keeps, newest first (older ones are dropped). */
export const MEMORY_KEPT_RESPONSES = 10_000;
/** How many characters of JSON (Response objects and input items) a memory store keeps in all. */
export const MEMORY_KEPT_RESPONSE_CHARS = 128 * 1024 * 1024;

export interface MemoryResponseRowsOptions {
  readonly maxRows?: number;
  readonly maxChars?: number;
}

/** A row and its UTF-8 bytes. */
interface Kept {
  readonly row: ResponseRow;
  readonly bytes: number;
}

const sizeOf = (row: ResponseRow) => row.responseJson.length + row.inputItemsJson.length;
const isLive = (row: ResponseRow, now: number) => row.expiresAtMs > now;

/**
 * Stored responses in this process (`store: memory`): bounded by a row count and a total
 * size, dropping the oldest-saved first, besides the expiry and per-account quota every
 * store has.
 */
export class MemoryResponseRows implements ResponseRows {
  /** In saving order (the first entry is the oldest), keyed by account and id. */
  private readonly rows = new Map<string, ResponseRow>();
  /** Each account's rows by id, with their bytes (measured once). */
  private readonly byAccount = new Map<string, Map<string, Kept>>();
  private chars = 0;
  private bytes = 0;
  private readonly maxRows: number;
  private readonly maxChars: number;

  constructor(options: MemoryResponseRowsOptions = {}) {
    this.maxRows = options.maxRows ?? MEMORY_KEPT_RESPONSES;
    this.maxChars = options.maxChars ?? MEMORY_KEPT_RESPONSE_CHARS;
  }

  async put(row: ResponseRow, quota: ResponseQuota): Promise<{ stored: boolean; usage: ResponseUsage }> {
    const before = this.liveUsage(row.accountId, row.id);
    if (before.count >= quota.maxCount || before.bytes >= quota.maxBytes) return { stored: false, usage: before };
    this.remove(row.accountId, row.id);
    this.rows.set(keyOf(row.accountId, row.id), row);
    let own = this.byAccount.get(row.accountId);
    if (own === undefined) this.byAccount.set(row.accountId, (own = new Map()));
    const bytes = rowBytes(row);
    own.set(row.id, { row, bytes });
    this.chars += sizeOf(row);
    this.bytes += bytes;
    for (const [, oldest] of this.rows) {
      if (this.rows.size <= this.maxRows && this.chars <= this.maxChars) break;
      this.remove(oldest.accountId, oldest.id);
    }
    return { stored: true, usage: { count: before.count + 1, bytes: before.bytes + bytes } };
  }

  async get(accountId: string, id: string): Promise<ResponseRow | undefined> {
    return this.live(accountId, id, Date.now());
  }

  async chain(accountId: string, id: string, limits: ChainLimits): Promise<ResponseRow[]> {
    const now = Date.now();
    const first = this.live(accountId, id, now);
    if (first === undefined) return [];
    const chain = [first];
    if (first.depth !== null && first.depth >= limits.maxRows) return chain;
    let total = rowBytes(first);
    for (let row = first; chain.length < limits.maxRows && total <= limits.maxBytes;) {
      const parent = row.previousResponseId === null ? undefined : this.live(accountId, row.previousResponseId, now);
      if (parent === undefined) break;
      chain.push(parent);
      total += rowBytes(parent);
      row = parent;
    }
    return chain;
  }

  async holdingItems(accountId: string, itemIds: readonly string[], limit: number): Promise<ResponseRow[]> {
    const wanted = new Set(itemIds);
    const now = Date.now();
    const found: ResponseRow[] = [];
    for (const { row } of this.byAccount.get(accountId)?.values() ?? []) {
      if (found.length >= limit) break;
      if (isLive(row, now) && row.itemIds.some((itemId) => wanted.has(itemId))) found.push(row);
    }
    return found;
  }

  async usage(accountId: string): Promise<ResponseUsage> {
    return this.liveUsage(accountId, undefined);
  }

  async size(): Promise<ResponseUsage> {
    return { count: this.rows.size, bytes: this.bytes };
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    if ((await this.get(accountId, id)) === undefined) return false;
    this.remove(accountId, id);
    return true;
  }

  async sweep(limit: number): Promise<number> {
    const now = Date.now();
    let swept = 0;
    for (const [, row] of this.rows) {
      if (swept >= limit) break;
      if (isLive(row, now)) continue;
      this.remove(row.accountId, row.id);
      swept++;
    }
    return swept;
  }

  private live(accountId: string, id: string, now: number): ResponseRow | undefined {
    const row = this.byAccount.get(accountId)?.get(id)?.row;
    return row !== undefined && isLive(row, now) ? row : undefined;
  }

  /** The account's live rows, the one with id `except` left out. */
  private liveUsage(accountId: string, except: string | undefined): ResponseUsage {
    const now = Date.now();
    let count = 0;
    let bytes = 0;
    for (const kept of this.byAccount.get(accountId)?.values() ?? []) {
      if (kept.row.id === except || !isLive(kept.row, now)) continue;
      count += 1;
      bytes += kept.bytes;
    }
    return { count, bytes };
  }

  private remove(accountId: string, id: string): void {
    const own = this.byAccount.get(accountId);
    const kept = own?.get(id);
    if (own === undefined || kept === undefined) return;
    own.delete(id);
    if (own.size === 0) this.byAccount.delete(accountId);
    this.rows.delete(keyOf(accountId, id));
    this.chars -= sizeOf(kept.row);
    this.bytes -= kept.bytes;
  }
}

/** One key for (account, id): account ids hold no newline. */
function keyOf(accountId: string, id: string): string {
  return `${accountId}\n${id}`;
}
