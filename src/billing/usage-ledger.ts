import type { AccountCache } from './account-cache.js';
import type { Logger } from '../observability/logger.js';
import type { UsageRow } from '../store/records.js';
import type { Store } from '../store/store.js';
import { replayableRows, STREAM_CUT_BY_CRASH } from './replayable-rows.js';
import type { StreamSnapshot, UsageJournal } from './usage-journal.js';

export interface UsageLedgerSettings {
  /** How long a booked row may wait before its batch is written. */
  readonly flushIntervalMs: number;
  /** Rows per store transaction; a batch is written at once when this many wait. */
  readonly maxBatchRows: number;
  /** Rows that may wait for the store (it is down); beyond, requests are refused (503) rather than a charge lost. */
  readonly maxWaitingRows: number;
}

const RETRY_MS = { first: 250, max: 10_000 };

/**
 * Books one usage row per request that reached a node. `book` appends the row to the
 * journal (when there is one) and returns; batches go to the store off the request path,
 * each in one transaction that also moves the money (see Store.recordUsage). While the
 * store is down, rows wait (in memory and in the journal's files) and are retried with
 * backoff, in transactions of at most `maxBatchRows`; a journal file is deleted once every
 * row in it is committed. At most `maxWaitingRows` wait: when they do, `full` is true and
 * the gateway refuses new requests until the store takes them (no charge is ever dropped).
 */
export class UsageLedger {
  private buffer: UsageRow[] = [];
  /** Rows taken for writing and not committed yet (the store failed), oldest first… */
  private unwritten: UsageRow[] = [];
  /** …and the sealed journal files that hold them. */
  private unwrittenFiles: string[] = [];
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
    return this.buffer.length + this.unwritten.length;
  }

  /** Whether the last write to the store failed. */
  get degraded(): boolean {
    return this.storeDown;
  }

  /** As many rows wait as may: requests that would add one are refused until the store takes them. */
  get full(): boolean {
    return this.pendingRows >= this.settings.maxWaitingRows;
  }

  /**
   * Replays what a previous process left in the journal; call before serving. Every file
   * is read first: a stream's final row and its progress records may be in different files.
   */
  async replayJournal(): Promise<number> {
    if (this.journal === undefined) return 0;
    const files = this.journal.leftovers();
    const rows = replayableRows(files.flatMap((file) => file.rows));
    for (let start = 0; start < rows.length; start += 1000)
      await this.store.recordUsage(rows.slice(start, start + 1000));
    for (const { path } of files) this.journal.remove(path);
    const inFlight = rows.filter((row) => row.errorCode === STREAM_CUT_BY_CRASH).length;
    if (rows.length > 0)
      this.logger.info({ rows: rows.length, streams_in_flight: inFlight }, 'usage journal replayed into the store');
    return rows.length;
  }

  /**
   * Journals a stream in flight (its usage so far, every `usage.stream_progress_interval_ms`)
   * until the returned function is called, right before its final row is booked. Undefined
   * without a journal or with progress off.
   */
  trackStream(snapshot: StreamSnapshot): (() => void) | undefined {
    return this.journal?.track(snapshot);
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
    const sealed = this.journal?.seal();
    if (sealed !== undefined) this.unwrittenFiles.push(sealed);
    if (this.buffer.length > 0)
      this.unwritten = this.unwritten.length === 0 ? this.buffer : this.unwritten.concat(this.buffer);
    this.buffer = [];
    const backlog = this.unwritten.length;
    while (this.unwritten.length > 0) {
      const rows = this.unwritten.slice(0, this.settings.maxBatchRows);
      try {
        await this.cache.serialize(async () => {
          const settled = await this.store.recordUsage(rows, this.holder);
          this.cache.committed(rows, settled);
        });
      } catch (error) {
        this.failures++;
        if (!this.storeDown)
          this.logger.error(
            { err: error, rows: this.unwritten.length },
            'usage rows could not be written to the store; keeping them and retrying',
          );
        this.storeDown = true;
        const delay = Math.min(RETRY_MS.max, RETRY_MS.first * 2 ** Math.min(this.failures - 1, 10));
        this.timer ??= setTimeout(() => void this.flush(), delay);
        return;
      }
      this.unwritten = this.unwritten.slice(rows.length);
    }
    for (const file of this.unwrittenFiles) this.journal?.remove(file);
    this.unwrittenFiles = [];
    if (this.storeDown) this.logger.info({ rows: backlog }, 'store is back: usage rows written');
    this.storeDown = false;
    this.failures = 0;
  }

  /** Writes what is left (one try) and closes the journal. */
  async close(): Promise<void> {
    await this.flush();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.journal?.close();
  }
}
