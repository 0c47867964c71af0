/** One node attempt of a logged request; times in ms (`startedMs` from the request's arrival, the others from the attempt's start). */
export interface RequestAttemptRow {
  readonly node: string;
  readonly status: number | null;
  readonly errorCode: string | null;
  readonly startedMs: number | null;
  readonly firstByteMs: number | null;
  readonly totalMs: number;
}

/** The tokens a request is billed on. */
export interface RequestTokens {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
  readonly reasoningTokens: number;
}

/**
 * One request's record (PRODUCT decision 28), as the store keeps it. Absent values are
 * null; `timeMs` is the request's arrival (unix ms); `status` is what the client got (499
 * when it left before the end).
 */
export interface RequestLogRow {
  readonly id: string;
  readonly correlationId: string;
  readonly timeMs: number;
  readonly door: string;
  readonly method: string | null;
  readonly path: string;
  readonly status: number | null;
  readonly errorCode: string | null;
  readonly keyId: string | null;
  readonly keyPrefix: string | null;
  readonly accountId: string | null;
  readonly endUser: string | null;
  readonly model: string | null;
  readonly modelServed: string | null;
  /** The node of the last attempt. */
  readonly node: string | null;
  readonly affinity: string | null;
  readonly stream: boolean;
  readonly attempts: readonly RequestAttemptRow[];
  readonly usage: RequestTokens | null;
  readonly costUsd: number | null;
  readonly firstByteMs: number | null;
  readonly totalMs: number;
  readonly traceId: string | null;
  /** Kept only where `request_log.bodies` is on, redacted and cut; null otherwise or once past the body retention. */
  readonly requestBody: string | null;
  readonly replyBody: string | null;
}

/** A status filter: a class (`4` for 4xx) or one status. */
export type StatusFilter = { readonly class: 2 | 3 | 4 | 5 } | { readonly exact: number };

/** Where a page of the list starts: after this row (newest first). */
export interface RequestCursor {
  readonly timeMs: number;
  readonly id: string;
}

export interface RequestLogFilter {
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly status?: StatusFilter;
  readonly errorCode?: string;
  readonly keyId?: string;
  readonly accountId?: string;
  readonly endUser?: string;
  /** Asked or served. */
  readonly model?: string;
  /** Any attempt. */
  readonly node?: string;
  readonly door?: string;
  readonly after?: RequestCursor;
  readonly limit: number;
}

export interface RequestStatsQuery {
  readonly fromMs: number;
  readonly toMs: number;
  readonly bucketSeconds: number;
  readonly model?: string;
  readonly door?: string;
}

/** One time bucket of request stats (buckets start at multiples of the width from the epoch). */
export interface RequestStatsBucket {
  readonly startMs: number;
  readonly requests: number;
  readonly status2xx: number;
  readonly status4xx: number;
  readonly status5xx: number;
  readonly errorCodes: Readonly<Record<string, number>>;
  readonly firstByteP50Ms: number | null;
  readonly firstByteP95Ms: number | null;
}

/** Requests without a valid key from one client address for one reason, over a span of time. */
export interface UnauthenticatedCount {
  readonly clientAddress: string;
  readonly reason: string;
  readonly count: number;
  readonly firstSeenMs: number;
  readonly lastSeenMs: number;
}

/** What the periodic purge removes: rows older than `beforeMs` and beyond the newest `maxRows`, bodies older than `bodiesBeforeMs`. */
export interface RequestLogPurge {
  readonly beforeMs: number;
  readonly bodiesBeforeMs: number;
  readonly maxRows: number;
}

/**
 * The `request_log` tables (migration 10) or their in-memory stand-in (a bounded ring).
 * Written in batches by the request log writer, never on a request's path.
 */
export interface RequestLogRows {
  /** Inserts the records (a known id is skipped) and adds the counts of requests without a valid key. */
  insert(rows: readonly RequestLogRow[], unauthenticated: readonly UnauthenticatedCount[]): Promise<void>;
  /** Matching records, newest first (by time, then id), bodies left out (null): at most `filter.limit`. */
  list(filter: RequestLogFilter): Promise<RequestLogRow[]>;
  /** One record with its bodies. */
  get(id: string): Promise<RequestLogRow | undefined>;
  /** Only buckets with requests, oldest first. */
  stats(query: RequestStatsQuery): Promise<RequestStatsBucket[]>;
  /** Counts per address and reason since `fromMs`, largest first, at most `limit`. */
  unauthenticated(fromMs: number, limit: number): Promise<UnauthenticatedCount[]>;
  /** Applies retention and the row cap; returns the records removed. */
  purge(policy: RequestLogPurge): Promise<number>;
}
