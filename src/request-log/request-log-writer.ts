import { Counter, Gauge, type Registry } from 'prom-client';
import type { RequestLogSettings } from '../config/gateway-config.js';
import type { Logger } from '../observability/logger.js';
import type { RequestLogRow, RequestLogRows } from '../store/request-log-rows.js';
import { cutToBytes, redactSecrets } from './redact-secrets.js';
import { UnauthenticatedCounts } from './unauthenticated-counts.js';

const DAY_MS = 86_400_000;
/** Characters past the body cut still scanned for secrets (longer than any key). */
const SECRET_MARGIN_CHARS = 1024;

/** Why records were dropped: the queue was full, the store did not answer in time, or it failed. */
export type DropReason = 'queue_full' | 'store_slow' | 'store_error';

/** What the writer reads of the running configuration (swapped on reload). */
export interface RequestLogSources {
  settings(): RequestLogSettings;
  /** The secrets a kept body must not hold: the gateway's keys from the file, the admin key, the nodes' keys. */
  knownSecrets(): readonly string[];
}

/**
 * Writes request records off the request path (PRODUCT decision 28): `add` only appends to
 * a bounded queue (a full queue drops the record and counts it); a timer takes batches to
 * the store, one write at a time; a write the store has not finished within
 * `write_timeout_ms` is counted as dropped (`store_slow`: it may still land) and one that
 * fails as `store_error`. No request ever waits for the store or fails because of it.
 * Counts of requests without a valid key go with the batches. A second timer applies
 * retention and the row cap. Drops and the queue's length are in /metrics.
 */
export class RequestLogWriter {
  private queue: RequestLogRow[] = [];
  private readonly unauthenticated: UnauthenticatedCounts;
  private writing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private purgeTimer: NodeJS.Timeout | undefined;
  private readonly dropped: Counter<'reason'>;
  private closed = false;

  constructor(
    private readonly rows: RequestLogRows,
    private readonly sources: RequestLogSources,
    private readonly logger: Logger,
    registry: Registry,
  ) {
    this.unauthenticated = new UnauthenticatedCounts(() => sources.settings().maxUnauthenticatedAddresses);
    this.dropped = new Counter({
      name: 'switchyard_request_records_dropped_total',
      help: 'Request records not written: queue_full (the writer queue was full), store_slow (the store took longer than request_log.write_timeout_ms), store_error (the write failed).',
      labelNames: ['reason'],
      registers: [registry],
    });
    for (const reason of ['queue_full', 'store_slow', 'store_error'] as const) this.dropped.inc({ reason }, 0);
    const queue = () => this.queue.length;
    new Gauge({
      name: 'switchyard_request_records_queued',
      help: 'Request records waiting for the store.',
      registers: [registry],
      collect() {
        this.set(queue());
      },
    });
  }

  /** Starts the flush and purge timers (they do not keep the process alive). */
  start(): void {
    const settings = this.sources.settings();
    this.flushTimer = setInterval(() => void this.flush(), settings.flushIntervalMs);
    this.flushTimer.unref();
    this.purgeTimer = setInterval(() => void this.purge(), settings.purgeIntervalMs);
    this.purgeTimer.unref();
  }

  /** Queues one record; never waits, never throws. */
  add(row: RequestLogRow): void {
    if (this.closed) return;
    if (this.queue.length >= this.sources.settings().maxQueueRows) {
      this.dropped.inc({ reason: 'queue_full' });
      return;
    }
    this.queue.push(row);
  }

  /** Counts a request without a valid key from `clientAddress`, for `reason` (its error code). */
  countUnauthenticated(clientAddress: string, reason: string, nowMs = Date.now()): void {
    if (!this.closed) this.unauthenticated.add(clientAddress, reason, nowMs);
  }

  /** Records waiting for the store. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * Writes what is queued now, batch by batch (waiting for a write already under way
   * first). Resolves when done, dropped or timed out; never rejects.
   */
  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
    const { maxBatchRows } = this.sources.settings();
    let waiting = this.queue.length;
    do {
      const batch = this.queue.slice(0, maxBatchRows);
      this.queue = this.queue.slice(batch.length);
      waiting -= batch.length;
      const counts = this.unauthenticated.take();
      if (batch.length === 0 && counts.length === 0) return;
      this.writing = this.write(batch, counts);
      await this.writing;
      this.writing = undefined;
    } while (waiting > 0);
  }

  private async write(batch: RequestLogRow[], counts: ReturnType<UnauthenticatedCounts['take']>): Promise<void> {
    const settings = this.sources.settings();
    const rows = batch.some((row) => row.requestBody !== null || row.replyBody !== null)
      ? this.withRedactedBodies(batch, settings.maxBodyBytes)
      : batch;
    const insert = this.rows.insert(rows, counts).then(
      () => 'written' as const,
      (error: unknown) => {
        this.logger.warn({ err: error, records: rows.length }, 'request records could not be written; dropped');
        return 'failed' as const;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'slow'>((resolve) => {
      timer = setTimeout(() => resolve('slow'), settings.writeTimeoutMs);
    });
    const outcome = await Promise.race([insert, timeout]);
    clearTimeout(timer);
    if (outcome === 'failed') this.dropped.inc({ reason: 'store_error' }, rows.length);
    if (outcome !== 'slow') return;
    this.dropped.inc({ reason: 'store_slow' }, rows.length);
    this.logger.warn(
      { records: rows.length, timeout_ms: settings.writeTimeoutMs },
      'the store is slow to take request records; counted as dropped',
    );
    // One write at a time: the next waits for this one to end, so a hung store holds one batch, not many.
    await insert;
  }

  private withRedactedBodies(batch: readonly RequestLogRow[], maxBodyBytes: number): RequestLogRow[] {
    const secrets = this.sources.knownSecrets();
    // Redacted before the cut (a secret across the cut is still found), on no more than the cut plus a margin.
    const keep = (body: string | null) =>
      body === null
        ? null
        : cutToBytes(
            redactSecrets(body.slice(0, maxBodyBytes + SECRET_MARGIN_CHARS), secrets),
            maxBodyBytes,
          ).replaceAll('\u0000', '\uFFFD');
    return batch.map((row) =>
      row.requestBody === null && row.replyBody === null
        ? row
        : { ...row, requestBody: keep(row.requestBody), replyBody: keep(row.replyBody) },
    );
  }

  /** Applies retention and the row cap once; failures are logged, tried again at the next turn. */
  async purge(nowMs = Date.now()): Promise<void> {
    const settings = this.sources.settings();
    try {
      await this.rows.purge({
        beforeMs: nowMs - settings.retentionDays * DAY_MS,
        bodiesBeforeMs: nowMs - settings.bodyRetentionDays * DAY_MS,
        maxRows: settings.maxRows,
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'request log purge failed');
    }
  }

  /** Stops the timers and writes what is left (shutdown). */
  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.purgeTimer);
    await this.flush();
    this.closed = true;
  }
}
