import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from '../store/is-process-alive.js';
import type { UsageRow } from '../store/records.js';

const ACTIVE = /^usage-(\d+)-active\.ndjson$/;
const SEALED = /^usage-(\d+)-(\d+)\.ndjson$/;

/**
 * The durable side of the usage ledger: each booked row is appended (one write(2), before
 * the client gets the reply's last bytes) to this process's active file; a batch about to
 * be committed is sealed by renaming that file, and the sealed file is deleted once the
 * store has committed it. What a killed process leaves behind is replayed at the next
 * start (by any instance using the same directory; the store skips rows already booked).
 */
export class UsageJournal {
  private fd: number | undefined;
  private sealedCount = 0;
  private readonly activePath: string;

  constructor(private readonly directory: string) {
    mkdirSync(directory, { recursive: true });
    this.activePath = join(directory, `usage-${process.pid}-active.ndjson`);
  }

  append(row: UsageRow): void {
    this.fd ??= openSync(this.activePath, 'a');
    writeSync(this.fd, `${JSON.stringify(row)}\n`);
  }

  /** Closes the active file and names it for one commit; undefined when nothing was appended. */
  seal(): string | undefined {
    if (this.fd === undefined) return undefined;
    closeSync(this.fd);
    this.fd = undefined;
    const sealed = join(this.directory, `usage-${process.pid}-${Date.now()}${String(this.sealedCount++).padStart(6, '0')}.ndjson`);
    renameSync(this.activePath, sealed);
    return sealed;
  }

  remove(path: string): void {
    rmSync(path, { force: true });
  }

  /** Files left by processes that are gone: [path, rows] to replay. */
  leftovers(): Array<{ path: string; rows: UsageRow[] }> {
    const found: Array<{ path: string; rows: UsageRow[] }> = [];
    for (const name of readdirSync(this.directory).sort()) {
      const owner = ACTIVE.exec(name)?.[1] ?? SEALED.exec(name)?.[1];
      if (owner === undefined || (Number(owner) !== process.pid && isProcessAlive(Number(owner)))) continue;
      if (Number(owner) === process.pid && name === `usage-${process.pid}-active.ndjson` && this.fd !== undefined) continue;
      const path = join(this.directory, name);
      const rows: UsageRow[] = [];
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        // A line cut by a crash in the middle of a write is the only kind that fails to parse.
        if (line.trim() === '') continue;
        try {
          rows.push(JSON.parse(line) as UsageRow);
        } catch {
          // Incomplete last line: its request never finished sending, so it was never committed.
        }
      }
      found.push({ path, rows });
    }
    return found;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
