import type {
  RequestLogFilter,
  RequestLogPurge,
  RequestLogRow,
  RequestLogRows,
  RequestStatsBucket,
  RequestStatsQuery,
  UnauthenticatedCount,
} from '../request-log-rows.js';
import { interpolatedPercentile } from './usage-stats-of-rows.js';

/** Request records the memory store keeps at most, newest (its `request_log.max_rows` cannot go higher). */
export const MEMORY_STORE_KEPT_REQUEST_ROWS = 10_000;
/** Address-and-reason counts the memory store keeps at most (the oldest go first). */
const KEPT_UNAUTHENTICATED = 10_000;

/** Newest first: by time, then id. */
function newestFirst(a: RequestLogRow, b: RequestLogRow): number {
  return b.timeMs - a.timeMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Whether a row matches the filter (bodies aside). */
export function matchesRequestFilter(row: RequestLogRow, filter: RequestLogFilter): boolean {
  if (filter.fromMs !== undefined && row.timeMs < filter.fromMs) return false;
  if (filter.toMs !== undefined && row.timeMs >= filter.toMs) return false;
  if (filter.status !== undefined) {
    if (row.status === null) return false;
    if (
      'class' in filter.status
        ? Math.floor(row.status / 100) !== filter.status.class
        : row.status !== filter.status.exact
    )
      return false;
  }
  if (filter.errorCode !== undefined && row.errorCode !== filter.errorCode) return false;
  if (filter.keyId !== undefined && row.keyId !== filter.keyId) return false;
  if (filter.accountId !== undefined && row.accountId !== filter.accountId) return false;
  if (filter.endUser !== undefined && row.endUser !== filter.endUser) return false;
  if (filter.model !== undefined && row.model !== filter.model && row.modelServed !== filter.model) return false;
  if (filter.node !== undefined && !row.attempts.some((attempt) => attempt.node === filter.node)) return false;
  if (filter.door !== undefined && row.door !== filter.door) return false;
  const after = filter.after;
  if (after !== undefined && !(row.timeMs < after.timeMs || (row.timeMs === after.timeMs && row.id < after.id)))
    return false;
  return true;
}

/** Stats buckets over rows, as the SQL store's queries give them. */
export function requestStatsOfRows(rows: Iterable<RequestLogRow>, query: RequestStatsQuery): RequestStatsBucket[] {
  const widthMs = query.bucketSeconds * 1000;
  const open = new Map<
    number,
    { requests: number; classes: [number, number, number]; codes: Record<string, number>; firstBytes: number[] }
  >();
  for (const row of rows) {
    if (row.timeMs < query.fromMs || row.timeMs >= query.toMs) continue;
    if (query.door !== undefined && row.door !== query.door) continue;
    if (query.model !== undefined && row.model !== query.model && row.modelServed !== query.model) continue;
    const start = Math.floor(row.timeMs / widthMs) * widthMs;
    let bucket = open.get(start);
    if (bucket === undefined) {
      bucket = { requests: 0, classes: [0, 0, 0], codes: {}, firstBytes: [] };
      open.set(start, bucket);
    }
    bucket.requests++;
    const status = row.status ?? 0;
    if (status >= 200 && status < 300) bucket.classes[0]++;
    else if (status >= 400 && status < 500) bucket.classes[1]++;
    else if (status >= 500) bucket.classes[2]++;
    if (status >= 400 && row.errorCode !== null) bucket.codes[row.errorCode] = (bucket.codes[row.errorCode] ?? 0) + 1;
    if (row.firstByteMs !== null) bucket.firstBytes.push(row.firstByteMs);
  }
  return [...open.entries()]
    .sort(([a], [b]) => a - b)
    .map(([startMs, bucket]) => {
      const sorted = bucket.firstBytes.sort((a, b) => a - b);
      return {
        startMs,
        requests: bucket.requests,
        status2xx: bucket.classes[0],
        status4xx: bucket.classes[1],
        status5xx: bucket.classes[2],
        errorCodes: bucket.codes,
        firstByteP50Ms: sorted.length === 0 ? null : interpolatedPercentile(sorted, 0.5),
        firstByteP95Ms: sorted.length === 0 ? null : interpolatedPercentile(sorted, 0.95),
      };
    });
}

/**
 * The memory store's request log: the newest MEMORY_STORE_KEPT_REQUEST_ROWS records (older
 * ones go as new ones come), and counts of requests without a valid key per address and reason.
 */
export class MemoryRequestLog implements RequestLogRows {
  private readonly rows = new Map<string, RequestLogRow>();
  /**
   * Ids in the order inserted, oldest from `oldest` on (some may be purged already): the
   * oldest row goes by its id. `rows.keys().next()` would walk over every slot V8's Map
   * keeps for a deleted entry until the table is rebuilt, ~25 µs per insert at 10,000 rows.
   */
  private insertionOrder: (string | undefined)[] = [];
  private oldest = 0;
  private readonly unauthenticatedCounts = new Map<string, UnauthenticatedCount>();

  constructor(private readonly keptRows = MEMORY_STORE_KEPT_REQUEST_ROWS) {}

  insert(rows: readonly RequestLogRow[], unauthenticated: readonly UnauthenticatedCount[]): Promise<void> {
    for (const row of rows) {
      if (this.rows.has(row.id)) continue;
      this.rows.set(row.id, row);
      this.insertionOrder.push(row.id);
    }
    this.dropOldestRows();
    for (const count of unauthenticated) {
      const id = `${count.clientAddress}\u0000${count.reason}`;
      const known = this.unauthenticatedCounts.get(id);
      this.unauthenticatedCounts.delete(id);
      this.unauthenticatedCounts.set(
        id,
        known === undefined
          ? count
          : {
              ...known,
              count: known.count + count.count,
              firstSeenMs: Math.min(known.firstSeenMs, count.firstSeenMs),
              lastSeenMs: Math.max(known.lastSeenMs, count.lastSeenMs),
            },
      );
    }
    for (const id of this.unauthenticatedCounts.keys()) {
      if (this.unauthenticatedCounts.size <= KEPT_UNAUTHENTICATED) break;
      this.unauthenticatedCounts.delete(id);
    }
    return Promise.resolve();
  }

  private dropOldestRows(): void {
    const order = this.insertionOrder;
    while (this.rows.size > this.keptRows && this.oldest < order.length) {
      this.rows.delete(order[this.oldest] as string);
      order[this.oldest++] = undefined;
    }
    // Purged rows leave their ids behind: rebuild from the rows kept when the list is twice their number.
    if (order.length - this.oldest > 2 * this.keptRows + 1_024) {
      this.insertionOrder = [...this.rows.keys()];
      this.oldest = 0;
    } else if (this.oldest > 4_096 && this.oldest * 2 > order.length) {
      order.splice(0, this.oldest);
      this.oldest = 0;
    }
  }

  list(filter: RequestLogFilter): Promise<RequestLogRow[]> {
    const matching: RequestLogRow[] = [];
    for (const row of this.rows.values()) if (matchesRequestFilter(row, filter)) matching.push(row);
    return Promise.resolve(
      matching
        .sort(newestFirst)
        .slice(0, filter.limit)
        .map((row) => ({ ...row, requestBody: null, replyBody: null })),
    );
  }

  get(id: string): Promise<RequestLogRow | undefined> {
    return Promise.resolve(this.rows.get(id));
  }

  stats(query: RequestStatsQuery): Promise<RequestStatsBucket[]> {
    return Promise.resolve(requestStatsOfRows(this.rows.values(), query));
  }

  unauthenticated(fromMs: number, limit: number): Promise<UnauthenticatedCount[]> {
    return Promise.resolve(
      [...this.unauthenticatedCounts.values()]
        .filter((count) => count.lastSeenMs >= fromMs)
        .sort((a, b) => b.count - a.count || b.lastSeenMs - a.lastSeenMs)
        .slice(0, limit),
    );
  }

  purge(policy: RequestLogPurge): Promise<number> {
    let removed = 0;
    const newest = [...this.rows.values()].sort(newestFirst);
    for (const [index, row] of newest.entries()) {
      if (index >= policy.maxRows || row.timeMs < policy.beforeMs) {
        this.rows.delete(row.id);
        removed++;
      } else if (row.timeMs < policy.bodiesBeforeMs && (row.requestBody !== null || row.replyBody !== null)) {
        this.rows.set(row.id, { ...row, requestBody: null, replyBody: null });
      }
    }
    for (const [id, count] of this.unauthenticatedCounts)
      if (count.lastSeenMs < policy.beforeMs) this.unauthenticatedCounts.delete(id);
    return Promise.resolve(removed);
  }
}
