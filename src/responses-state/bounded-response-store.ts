import type { ResponsesSettings } from '../config/gateway-config.js';
import type { Logger } from '../observability/logger.js';
import type { ResponseRow, ResponseRows } from '../store/response-rows.js';
import type { ResponseStore } from './response-store.js';
import type { StoredResponse } from './stored-response.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How often expired rows are deleted (they are invisible from the moment they expire). */
export const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** The first sweep after start, so a gateway that restarts often still sweeps. */
const FIRST_SWEEP_MS = 30_000;
/** Rows deleted per statement; a sweep repeats until fewer come back. */
const SWEEP_BATCH = 1000;

/**
 * The ResponseStore of every backend: the retention and size cap of the `responses:`
 * settings (read at each save, so a reload applies to what is saved next) over the
 * store's rows. A response expires `retention_days` after its `created_at`; one larger
 * than `max_stored_bytes` (its Response object and input items as JSON) is not kept and a
 * warning is logged. `save` never rejects: the reply has gone or goes out regardless.
 */
export class BoundedResponseStore implements ResponseStore {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly rows: ResponseRows,
    private readonly settings: () => ResponsesSettings,
    private readonly logger: Logger,
  ) {}

  async save(r: StoredResponse): Promise<void> {
    const { retentionDays, maxStoredBytes } = this.settings();
    const responseJson = JSON.stringify(r.response);
    const inputItemsJson = JSON.stringify(r.inputItems);
    const bytes = Buffer.byteLength(responseJson) + Buffer.byteLength(inputItemsJson);
    if (bytes > maxStoredBytes) {
      this.logger.warn(
        { response_id: r.id, bytes, max_stored_bytes: maxStoredBytes },
        'response not stored: larger than responses.max_stored_bytes',
      );
      return;
    }
    const createdAtMs = r.createdAt * 1000;
    try {
      await this.rows.put({
        id: r.id,
        accountId: r.accountId,
        createdAtMs,
        expiresAtMs: createdAtMs + retentionDays * DAY_MS,
        model: r.model,
        node: r.node,
        previousResponseId: r.previousResponseId,
        responseJson,
        inputItemsJson,
      });
    } catch (error) {
      this.logger.error({ err: error, response_id: r.id }, 'response not stored: the store failed');
    }
  }

  async get(accountId: string, id: string): Promise<StoredResponse | undefined> {
    const row = await this.rows.get(accountId, id);
    return row === undefined ? undefined : storedResponseOf(row);
  }

  delete(accountId: string, id: string): Promise<boolean> {
    return this.rows.delete(accountId, id);
  }

  /** Deletes expired rows now (all of them, in batches); one sweep at a time. */
  sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        while ((await this.rows.sweep(SWEEP_BATCH)) === SWEEP_BATCH);
      } catch (error) {
        this.logger.warn({ err: error }, 'expired stored responses could not be deleted; retrying at the next sweep');
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }

  /** Sweeps shortly after start, then every SWEEP_INTERVAL_MS, until `stop`. */
  startSweeping(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      void this.sweep();
      this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS).unref();
    }, FIRST_SWEEP_MS).unref();
  }

  /** Stops the sweeps and waits for one in progress. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }
}

function storedResponseOf(row: ResponseRow): StoredResponse {
  return {
    id: row.id,
    accountId: row.accountId,
    createdAt: Math.floor(row.createdAtMs / 1000),
    model: row.model,
    node: row.node,
    response: JSON.parse(row.responseJson) as Record<string, unknown>,
    inputItems: JSON.parse(row.inputItemsJson) as Record<string, unknown>[],
    previousResponseId: row.previousResponseId,
  };
}
