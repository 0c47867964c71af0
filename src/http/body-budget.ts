import { gatewayError } from '../errors/gateway-error.js';

/** Seconds a refused client is told to wait: bodies being read finish or time out within seconds. */
const RETRY_AFTER_S = 1;

/** The caps a `BodyBudget` checks against (from `http.*`, read at every take so a reload applies). */
export interface BodyBudgetLimits {
  readonly maxBodyBytesInFlight: number;
  readonly maxBodyBytesInFlightPerKey: number;
  /** Per account, all its keys together; undefined: no cap of its own. */
  readonly maxBodyBytesInFlightPerAccount?: number;
  /** Per client address, all its keys together; undefined: no cap of its own. */
  readonly maxBodyBytesInFlightPerIp?: number;
}

/** Whose share a body's bytes are taken from: its key, the key's account, the client's address. */
export interface BodyHolder {
  readonly keyId?: string | undefined;
  readonly accountId?: string | undefined;
  readonly ip?: string | undefined;
}

/**
 * Bytes of request bodies being read at once, in total and per API key, account and client
 * address (issue 16 item 5: 200 held near-limit bodies of one key took the RSS from 278 to
 * 1,041 MiB; issue 28 finding 6: a share taken by declared length let 16 keys declaring 4
 * MiB, sending 2.7 KB, starve everyone). A request takes bytes as they arrive, never what it
 * only declares, and gives them back when its body is read or abandoned. Each share is a
 * map of numbers keyed by id (zeros swept in bulk): no per-request object is kept.
 */
export class BodyBudget {
  private total = 0;
  private readonly perKey = new Map<string, number>();
  private readonly perAccount = new Map<string, number>();
  private readonly perIp = new Map<string, number>();

  constructor(private readonly limits: () => BodyBudgetLimits) {}

  /**
   * Takes `bytes` for `holder` (undefined: the total only). Over the key's, the account's or
   * the address's share → 429 rate_limited, over the total → 503 server_busy, both with
   * Retry-After; nothing is taken then.
   */
  take(holder: BodyHolder | undefined, bytes: number): void {
    if (bytes <= 0) return;
    const limits = this.limits();
    const keyId = holder?.keyId;
    const accountId = holder?.accountId;
    const ip = holder?.ip;
    const byKey = shareAfter(this.perKey, keyId, bytes, limits.maxBodyBytesInFlightPerKey, 'key.body_bytes_in_flight');
    const byAccount = shareAfter(
      this.perAccount,
      accountId,
      bytes,
      limits.maxBodyBytesInFlightPerAccount,
      'account.body_bytes_in_flight',
    );
    const byIp = shareAfter(this.perIp, ip, bytes, limits.maxBodyBytesInFlightPerIp, 'ip.body_bytes_in_flight');
    if (this.total + bytes > limits.maxBodyBytesInFlight) {
      throw gatewayError('server_busy', { retryAfter: RETRY_AFTER_S, params: { retry_after: RETRY_AFTER_S } });
    }
    this.total += bytes;
    if (keyId !== undefined) this.perKey.set(keyId, byKey);
    if (accountId !== undefined) this.perAccount.set(accountId, byAccount);
    if (ip !== undefined) this.perIp.set(ip, byIp);
  }

  /** Gives back bytes taken with `take` for the same holder. */
  release(holder: BodyHolder | undefined, bytes: number): void {
    if (bytes <= 0) return;
    this.total -= bytes;
    add(this.perKey, holder?.keyId, -bytes);
    add(this.perAccount, holder?.accountId, -bytes);
    add(this.perIp, holder?.ip, -bytes);
  }
}

/**
 * What `id`'s share would hold with `bytes` more (0 without an id); throws 429 when that
 * passes `cap`.
 */
function shareAfter(
  shares: Map<string, number>,
  id: string | undefined,
  bytes: number,
  cap: number | undefined,
  limit: string,
): number {
  if (id === undefined) return 0;
  const held = (shares.get(id) ?? 0) + bytes;
  if (cap !== undefined && held > cap) {
    throw gatewayError('rate_limited', {
      retryAfter: RETRY_AFTER_S,
      params: { retry_after: RETRY_AFTER_S, limit },
    });
  }
  return held;
}

/** Holders whose share is back at zero are swept once a map holds this many, every SWEEP_EVERY releases. */
const MAX_SHARES_KEPT = 4_096;
const SWEEP_EVERY = 1_024;
let releasesSinceSweep = 0;

/**
 * A share back at zero stays in its map as 0 until the map holds MAX_SHARES_KEPT: deleting
 * and adding the same key on every request makes V8 rebuild the Map's table every few
 * requests (~0.2 µs per set and delete pair, three maps per request).
 */
function add(shares: Map<string, number>, id: string | undefined, bytes: number): void {
  if (id === undefined) return;
  shares.set(id, Math.max(0, (shares.get(id) ?? 0) + bytes));
  if (shares.size <= MAX_SHARES_KEPT || ++releasesSinceSweep < SWEEP_EVERY) return;
  releasesSinceSweep = 0;
  for (const [each, held] of shares) if (held === 0) shares.delete(each);
}
