import type { AccountCache } from '../billing/account-cache.js';
import type { Logger } from '../observability/logger.js';
import type { UsageRow } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { UsageJournal } from './usage-journal.js';

export interface UsageLedgerSettings {
  /** How long a booked row may wait before its batch is written. */
  readonly flushIntervalMs: number;
  /** A batch is written at once when this many rows wait. */
  readonly maxBatchRows: number;
}

const RETRY_MS = { first: 250, max: 10_000 };

/**
 * Books one usage row per request that reached a node. `book` appends the row to the
 * journal (when there is one) and returns; batches go to the store off the request path,
 * each in one transaction that also moves the money (see Store.recordUsage). A failed
 * batch is kept, with its journal files, and retried with backoff until the store takes it.
 */
export class UsageLedger {
  private buffer: UsageRow[] = [];
  /** A batch the store refused, and the journal files that hold it. */
  private retry: { rows: UsageRow[]; files: string[] } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private failures = 0;
  private storeDown = false;

  constructor(
    private readonly store: Store,
    private readonly cache: AccountCache,
    private readonly journal: UsageJournal | undefined,
    private readonly logger: Logger,
    private readonly settings: UsageLedgerSettings,
    /** This instance's spend-hold name: its batches' costs come out of its holds. */
    private readonly holder?: string,
  ) {}

  /** Rows waiting for the store (in memory and, with a journal, on disk). */
  get pendingRows(): number {
    return this.buffer.length + (this.retry?.rows.length ?? 0);
  }

  /** Whether the last write to the store failed. */
  get degraded(): boolean {
    return this.storeDown;
  }

  /** Replays what a previous process left in the journal; call before serving. */
  async replayJournal(): Promise<number> {
    if (this.journal === undefined) return 0;
    let replayed = 0;
    for (const { path, rows } of this.journal.leftovers()) {
      for (let start = 0; start < rows.length; start += 1000) await this.store.recordUsage(rows.slice(start, start + 1000));
      this.journal.remove(path);
      replayed += rows.length;
    }
    if (replayed > 0) this.logger.info({ rows: replayed }, 'usage journal replayed into the store');
    return replayed;
  }

  book(row: UsageRow): void {
    this.journal?.append(row);
    this.buffer.push(row);
    if (this.buffer.length >= this.settings.maxBatchRows) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.settings.flushIntervalMs);
  }

  /** Writes everything booked so far; resolves when it is committed (or, on failure, kept for retry). */
  flush(): Promise<void> {
    const previous = this.writing ?? Promise.resolve();
    const next = previous.then(() => this.writeBatch());
    this.writing = next;
    void next.finally(() => {
      if (this.writing === next) this.writing = undefined;
    });
    return next;
  }

  private async writeBatch(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = [...(this.retry?.rows ?? []), ...this.buffer];
    const files = [...(this.retry?.files ?? [])];
    const sealed = this.journal?.seal();
    if (sealed !== undefined) files.push(sealed);
    this.buffer = [];
    this.retry = undefined;
    if (rows.length === 0) return;
    try {
      await this.cache.serialize(async () => {
        const settled = await this.store.recordUsage(rows, this.holder);
        this.cache.committed(rows, settled);
      });
      for (const file of files) this.journal?.remove(file);
      if (this.storeDown) this.logger.info({ rows: rows.length }, 'store is back: usage rows written');
      this.storeDown = false;
      this.failures = 0;
    } catch (error) {
      this.retry = { rows, files };
      this.failures++;
      if (!this.storeDown) this.logger.error({ err: error, rows: rows.length }, 'usage rows could not be written to the store; keeping them and retrying');
      this.storeDown = true;
      const delay = Math.min(RETRY_MS.max, RETRY_MS.first * 2 ** Math.min(this.failures - 1, 10));
      this.timer ??= setTimeout(() => void this.flush(), delay);
    }
  }

  /** Writes what is left (one try) and closes the journal. */
  async close(): Promise<void> {
    await this.flush();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.journal?.close();
  }
}
