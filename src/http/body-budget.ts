import { gatewayError } from '../errors/gateway-error.js';

/** Seconds a refused client is told to wait: bodies being read finish or time out within seconds. */
const RETRY_AFTER_S = 1;

/** The caps a `BodyBudget` checks against (from `http.*`, read at every take so a reload applies). */
export interface BodyBudgetLimits {
  readonly maxBodyBytesInFlight: number;
  readonly maxBodyBytesInFlightPerKey: number;
}

/**
 * Bytes of request bodies being read at once, in total and per API key (issue 16 item 5:
 * 200 held near-limit bodies of one key took the RSS from 278 to 1,041 MiB). A request
 * takes the bytes it declares (or, chunked, as they arrive) before they are buffered and
 * gives them back when its body is read or abandoned. Per key the counts live in a map of
 * numbers keyed by the key's id, deleted at zero: no per-request object is kept.
 */
export class BodyBudget {
  private total = 0;
  private readonly perKey = new Map<string, number>();

  constructor(private readonly limits: () => BodyBudgetLimits) {}

  /**
   * Takes `bytes` for `keyId` (undefined: the total only). Over the key's share → 429
   * rate_limited, over the total → 503 server_busy, both with Retry-After; nothing is taken then.
   */
  take(keyId: string | undefined, bytes: number): void {
    if (bytes <= 0) return;
    const limits = this.limits();
    const held = keyId === undefined ? 0 : (this.perKey.get(keyId) ?? 0);
    if (keyId !== undefined && held + bytes > limits.maxBodyBytesInFlightPerKey) {
      throw gatewayError('rate_limited', {
        retryAfter: RETRY_AFTER_S,
        params: { retry_after: RETRY_AFTER_S, limit: 'key.body_bytes_in_flight' },
      });
    }
    if (this.total + bytes > limits.maxBodyBytesInFlight) {
      throw gatewayError('server_busy', { retryAfter: RETRY_AFTER_S, params: { retry_after: RETRY_AFTER_S } });
    }
    this.total += bytes;
    if (keyId !== undefined) this.perKey.set(keyId, held + bytes);
  }

  /** Gives back bytes taken with `take` for the same key. */
  release(keyId: string | undefined, bytes: number): void {
    if (bytes <= 0) return;
    this.total -= bytes;
    if (keyId === undefined) return;
    const left = (this.perKey.get(keyId) ?? 0) - bytes;
    if (left > 0) this.perKey.set(keyId, left);
    else this.perKey.delete(keyId);
  }
}
