import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from '../store/is-process-alive.js';
import type { UsageRow } from '../store/records.js';

const ACTIVE = /^usage-(\d+)-active\.ndjson$/;
const SEALED = /^usage-(\d+)-(\d+)\.ndjson$/;

/** A journal line: a booked row, or (`inFlight`) the usage so far of a stream that had not ended. */
export type JournalRow = UsageRow & { readonly inFlight?: true };

/** The latest usage of a stream in flight, as the row it would be booked on if the process died now. */
export type StreamSnapshot = () => UsageRow;

export interface UsageJournalOptions {
  /** How often the streams in flight are journaled (all in one write); 0: never. */
  readonly streamProgressIntervalMs: number;
  /** Progress records could not be written (streams go on; only their crash cover is missing); once per failing spell. */
  readonly onProgressError: (error: unknown) => void;
}

function progressLine(snapshot: StreamSnapshot): string {
  return `{"inFlight":true,${JSON.stringify(snapshot()).slice(1)}\n`;
}

/**
 * The durable side of the usage ledger: each booked row is appended (one write(2), before
 * the client gets the reply's last bytes) to this process's active file; a batch about to
 * be committed is sealed by renaming that file, and the sealed file is deleted once the
 * store has committed it. What a killed process leaves behind is replayed at the next
 * start (by any instance using the same directory; the store skips rows already booked).
 *
 * Streams in flight are journaled too (docs/keys-and-money.md, crash guarantee): a start record when the
 * stream is committed, then every `streamProgressIntervalMs` the usage so far of every
 * stream in one write, no write per event. A stream's final row supersedes its progress
 * records at replay (see replayableRows). A committed file that holds progress records of
 * streams still running is deleted only after the next progress write has put them in a
 * newer file, so every running stream always has a record on disk.
 */
export class UsageJournal {
  private fd: number | undefined;
  private sealedCount = 0;
  private readonly activePath: string;
  private readonly streams = new Set<StreamSnapshot>();
  /** Whether the active file holds progress records… */
  private activeHasProgress = false;
  /** …and the sealed files that do. */
  private readonly sealedWithProgress = new Set<string>();
  /** Committed files kept until the next progress write covers their streams. */
  private deferred: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private progressFailing = false;

  constructor(
    private readonly directory: string,
    private readonly options: UsageJournalOptions = { streamProgressIntervalMs: 0, onProgressError: () => undefined },
  ) {
    mkdirSync(directory, { recursive: true });
    this.activePath = join(directory, `usage-${process.pid}-active.ndjson`);
  }

  append(row: UsageRow): void {
    this.fd ??= openSync(this.activePath, 'a');
    writeSync(this.fd, `${JSON.stringify(row)}\n`);
  }

  /**
   * Journals a stream that is now in flight: its start record at once, then its latest
   * usage every interval until the returned function is called (just before its final row
   * is appended). Undefined when progress is not journaled.
   */
  track(snapshot: StreamSnapshot): (() => void) | undefined {
    if (this.options.streamProgressIntervalMs === 0) return undefined;
    this.streams.add(snapshot);
    this.writeProgress(progressLine(snapshot));
    this.timer ??= setInterval(() => this.tick(), this.options.streamProgressIntervalMs).unref();
    return () => this.streams.delete(snapshot);
  }

  private tick(): void {
    if (this.streams.size > 0) {
      let lines = '';
      for (const snapshot of this.streams) lines += progressLine(snapshot);
      // A failed write keeps the deferred files: they still hold these streams' last records.
      if (!this.writeProgress(lines)) return;
    }
    for (const path of this.deferred) rmSync(path, { force: true });
    this.deferred = [];
    if (this.streams.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private writeProgress(lines: string): boolean {
    try {
      this.fd ??= openSync(this.activePath, 'a');
      writeSync(this.fd, lines);
      this.activeHasProgress = true;
      this.progressFailing = false;
      return true;
    } catch (error) {
      if (!this.progressFailing) this.options.onProgressError(error);
      this.progressFailing = true;
      return false;
    }
  }

  /** Closes the active file and names it for one commit; undefined when nothing was appended. */
  seal(): string | undefined {
    if (this.fd === undefined) return undefined;
    closeSync(this.fd);
    this.fd = undefined;
    const sealed = join(
      this.directory,
      `usage-${process.pid}-${Date.now()}${String(this.sealedCount++).padStart(6, '0')}.ndjson`,
    );
    renameSync(this.activePath, sealed);
    if (this.activeHasProgress) this.sealedWithProgress.add(sealed);
    this.activeHasProgress = false;
    return sealed;
  }

  /**
   * Deletes a committed file; one with progress records of streams still running is kept
   * until the next progress write (every stream that has ended has its final row appended).
   */
  remove(path: string): void {
    if (this.sealedWithProgress.delete(path) && this.streams.size > 0) this.deferred.push(path);
    else rmSync(path, { force: true });
  }

  /** Files left by processes that are gone: [path, rows] to replay (see replayableRows). */
  leftovers(): Array<{ path: string; rows: JournalRow[] }> {
    const found: Array<{ path: string; rows: JournalRow[] }> = [];
    for (const name of readdirSync(this.directory).sort()) {
      const owner = ACTIVE.exec(name)?.[1] ?? SEALED.exec(name)?.[1];
      if (owner === undefined || (Number(owner) !== process.pid && isProcessAlive(Number(owner)))) continue;
      if (Number(owner) === process.pid && name === `usage-${process.pid}-active.ndjson` && this.fd !== undefined)
        continue;
      const path = join(this.directory, name);
      const rows: JournalRow[] = [];
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        // A line cut by a crash in the middle of a write is the only kind that fails to parse.
        if (line.trim() === '') continue;
        try {
          // Lines written before cache writes were booked have none: they were billed without;
          // lines written before there were several front doors came through the chat one;
          // lines written before end users were booked name none.
          rows.push({
            cacheWriteTokens: 0,
            cacheWrite1hTokens: 0,
            frontDoor: 'chat',
            endUser: null,
            ...(JSON.parse(line) as Omit<
              JournalRow,
              'cacheWriteTokens' | 'cacheWrite1hTokens' | 'frontDoor' | 'endUser'
            >),
          });
        } catch {
          // Incomplete last line: its request never finished sending, so it was never committed.
        }
      }
      found.push({ path, rows });
    }
    return found;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    // With no stream left running, every stream in the deferred files has its final row.
    if (this.streams.size === 0) for (const path of this.deferred) rmSync(path, { force: true });
    this.deferred = [];
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
