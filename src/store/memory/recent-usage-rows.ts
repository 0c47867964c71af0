import type { UsageRow } from '../records.js';

/**
 * Usage rows the memory store keeps by default. A row takes ~0.6 KiB of heap (measured
 * with the bench's rows), so the kept rows stay near 6 MiB however long a process on
 * `store: memory` serves, and an admin usage query scans at most this many.
 */
export const MEMORY_STORE_KEPT_USAGE_ROWS = 10_000;

/**
 * The most recent usage rows, at most `capacity`, in a ring: adding one more drops the
 * oldest. Also answers whether a request id is among the kept rows, which is the memory
 * store's idempotency window (see MemoryStore.recordUsage).
 */
export class RecentUsageRows {
  private readonly rows: Array<UsageRow | undefined>;
  private readonly requestIds = new Set<string>();
  /** Where the next row goes; once full, also the oldest row. */
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number = MEMORY_STORE_KEPT_USAGE_ROWS) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.rows = new Array<UsageRow | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  has(requestId: string): boolean {
    return this.requestIds.has(requestId);
  }

  /** Keeps the row; the oldest is dropped when `capacity` are kept. The caller skips known request ids. */
  add(row: UsageRow): void {
    const oldest = this.rows[this.next];
    if (oldest !== undefined) this.requestIds.delete(oldest.requestId);
    else this.count++;
    this.rows[this.next] = row;
    this.requestIds.add(row.requestId);
    this.next = (this.next + 1) % this.capacity;
  }

  /** The kept rows, newest first. */
  *newestFirst(): IterableIterator<UsageRow> {
    for (let back = 1; back <= this.count; back++) {
      const row = this.rows[(this.next - back + this.capacity) % this.capacity];
      if (row !== undefined) yield row;
    }
  }
}
