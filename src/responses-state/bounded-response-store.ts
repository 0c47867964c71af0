import type { ResponsesSettings } from '../config/gateway-config.js';
import type { Logger } from '../observability/logger.js';
import { rowBytes, type ResponseRow, type ResponseRows, type ResponseUsage } from '../store/response-rows.js';
import { outputItemsOf } from './conversation.js';
import type { ChainLink, ConversationLimits, ResponseStore } from './response-store.js';
import type { StoredResponse } from './stored-response.js';
import { isStoredIdForm } from './stored-id.js';
import { isRecord } from '../validation/is-record.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How often expired rows are deleted (they are invisible from the moment they expire). */
export const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** The first sweep after start, so a gateway that restarts often still sweeps. */
const FIRST_SWEEP_MS = 30_000;
/** Rows deleted per statement; a sweep repeats until fewer come back. */
const SWEEP_BATCH = 1000;
/** How long an account found full is taken as full before its usage is read again (in the background). */
export const FULL_RECHECK_MS = 30_000;

/**
 * The ResponseStore of every backend: the retention, size cap and per-account quota of the
 * `responses:` settings (read at each save, so a reload applies to what is saved next) over
 * the store's rows. A response expires `retention_days` after its `created_at`; one larger
 * than `max_stored_bytes` (its Response object and input items as JSON) is not kept and a
 * warning is logged; so is one of an account already holding
 * `max_stored_responses_per_account` responses or `max_stored_bytes_per_account` bytes.
 * An account found full at a save is remembered here, so that its next requests asking to
 * store are refused before a node is called, without a store read; a delete of its own
 * forgets that, and every FULL_RECHECK_MS its usage is read again in the background.
 * `save` never rejects: the reply has gone or goes out regardless.
 */
export class BoundedResponseStore implements ResponseStore {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  /** Accounts found full, and when that was last checked (ms). */
  private readonly full = new Map<string, number>();

  constructor(
    private readonly rows: ResponseRows,
    private readonly settings: () => ResponsesSettings,
    private readonly logger: Logger,
  ) {}

  async save(r: StoredResponse): Promise<void> {
    const { retentionDays, maxStoredBytes } = this.settings();
    const responseJson = JSON.stringify(r.response);
    const inputItemsJson = JSON.stringify(r.inputItems);
    const bytes = rowBytes({ responseJson, inputItemsJson });
    if (bytes > maxStoredBytes) {
      this.logger.warn(
        { response_id: r.id, bytes, max_stored_bytes: maxStoredBytes },
        'response not stored: larger than responses.max_stored_bytes',
      );
      return;
    }
    if (!isStoredIdForm(r.id)) {
      this.logger.warn(
        { response_id: r.id },
        'response not stored: its id is not printable ASCII of at most 256 characters',
      );
      return;
    }
    const createdAtMs = r.createdAt * 1000;
    try {
      const { stored, usage } = await this.rows.put(
        {
          id: r.id,
          accountId: r.accountId,
          createdAtMs,
          expiresAtMs: createdAtMs + retentionDays * DAY_MS,
          model: r.model,
          node: r.node,
          previousResponseId: r.previousResponseId,
          depth: r.depth,
          itemIds: outputItemsOf(r).flatMap((item) => (typeof item.id === 'string' ? [item.id] : [])),
          responseJson,
          inputItemsJson,
        },
        this.quota(),
      );
      if (!stored) {
        this.logger.warn(
          { response_id: r.id, account: r.accountId, stored_responses: usage.count, stored_bytes: usage.bytes },
          "response not stored: the account's stored responses are full",
        );
      }
      if (!stored || this.isOver(usage)) this.full.set(r.accountId, Date.now());
    } catch (error) {
      this.logger.error({ err: error, response_id: r.id }, 'response not stored: the store failed');
    }
  }

  async get(accountId: string, id: string): Promise<StoredResponse | undefined> {
    if (!isStoredIdForm(id)) return undefined;
    const row = await this.rows.get(accountId, id);
    return row === undefined ? undefined : storedResponseOf(row);
  }

  async chain(accountId: string, id: string, limits: ConversationLimits): Promise<ChainLink[]> {
    if (!isStoredIdForm(id)) return [];
    const rows = await this.rows.chain(accountId, id, {
      maxRows: limits.maxResponses + 1,
      maxBytes: limits.maxBytes,
    });
    return rows.map((row) => ({
      stored: storedResponseOf(row),
      bytes: rowBytes(row),
    }));
  }

  async holdingItems(accountId: string, itemIds: readonly string[]): Promise<StoredResponse[]> {
    const wanted = itemIds.filter(isStoredIdForm);
    if (wanted.length === 0) return [];
    const rows = await this.rows.holdingItems(accountId, wanted, wanted.length);
    return rows.map(storedResponseOf);
  }

  isFull(accountId: string): boolean {
    const checkedAt = this.full.get(accountId);
    if (checkedAt === undefined) return false;
    if (Date.now() - checkedAt >= FULL_RECHECK_MS) {
      this.full.set(accountId, Date.now());
      void this.recheck(accountId);
    }
    return true;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    if (!isStoredIdForm(id)) return false;
    const deleted = await this.rows.delete(accountId, id);
    if (deleted) this.full.delete(accountId);
    return deleted;
  }

  /** Every stored response kept (expired ones not yet swept included), for /metrics. */
  size(): Promise<ResponseUsage> {
    return this.rows.size();
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

  private quota() {
    const { maxStoredResponsesPerAccount, maxStoredBytesPerAccount } = this.settings();
    return { maxCount: maxStoredResponsesPerAccount, maxBytes: maxStoredBytesPerAccount };
  }

  private isOver(usage: ResponseUsage): boolean {
    const { maxCount, maxBytes } = this.quota();
    return usage.count >= maxCount || usage.bytes >= maxBytes;
  }

  /** Reads a full account's usage again; forgets it was full when it no longer is. */
  private async recheck(accountId: string): Promise<void> {
    try {
      if (!this.isOver(await this.rows.usage(accountId))) this.full.delete(accountId);
    } catch (error) {
      this.logger.warn({ err: error, account: accountId }, 'stored responses: usage could not be read again');
    }
  }
}

function storedResponseOf(row: ResponseRow): StoredResponse {
  // The gateway's own rows: a Response object and a list of items, as it wrote them.
  const response: unknown = JSON.parse(row.responseJson);
  const inputItems: unknown = JSON.parse(row.inputItemsJson);
  return {
    id: row.id,
    accountId: row.accountId,
    createdAt: Math.floor(row.createdAtMs / 1000),
    model: row.model,
    node: row.node,
    response: isRecord(response) ? response : {},
    inputItems: Array.isArray(inputItems) ? inputItems.filter(isRecord) : [],
    previousResponseId: row.previousResponseId,
    depth: row.depth,
  };
}
