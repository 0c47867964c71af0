import { gatewayError, invalidValue } from '../errors/gateway-error.js';
import type {
  RequestCursor,
  RequestLogFilter,
  RequestLogRow,
  RequestLogRows,
  RequestStatsBucket,
  StatusFilter,
} from '../store/request-log-rows.js';

/** The admin API's query string, as an object of its parameters. */
export type QueryParams = Readonly<Record<string, string | undefined>>;

const DEFAULT_PAGE = 50;
const MAX_PAGE = 500;
const DEFAULT_STATS_SPAN_MS = 3_600_000;
const DEFAULT_BUCKET_SECONDS = 60;
/** Buckets one stats answer holds at most (a day of minutes). */
const MAX_BUCKETS = 1440;
const DEFAULT_UNAUTHENTICATED_SPAN_MS = 86_400_000;
const DEFAULT_UNAUTHENTICATED_ROWS = 100;
const MAX_UNAUTHENTICATED_ROWS = 1000;
const DOORS = ['chat', 'messages', 'responses'] as const;

/** Something that may hold records not written yet (the gateway's writer); flushed before a read. */
export interface PendingRecords {
  flush(): Promise<void>;
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** A time parameter: ISO 8601 or unix milliseconds. */
function timeParam(name: string, value: string | undefined): number | undefined {
  const given = present(value);
  if (given === undefined) return undefined;
  const ms = /^\d{1,15}$/.test(given) ? Number(given) : Date.parse(given);
  if (!Number.isFinite(ms)) throw invalidValue(name, 'must_be_time_or_epoch_ms');
  return ms;
}

function statusParam(value: string | undefined): StatusFilter | undefined {
  const given = present(value)?.toLowerCase();
  if (given === undefined) return undefined;
  const classMatch = /^([2-5])xx$/.exec(given);
  if (classMatch !== null) return { class: Number(classMatch[1]) as 2 | 3 | 4 | 5 };
  if (/^\d{3}$/.test(given) && Number(given) >= 100 && Number(given) <= 599) return { exact: Number(given) };
  throw invalidValue('status', 'must_be_status_class');
}

function integerParam(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  const given = present(value);
  if (given === undefined) return fallback;
  const number = Number(given);
  if (!/^\d+$/.test(given) || number < min || number > max) throw invalidValue(name, 'integer_in_range', { min, max });
  return number;
}

function doorParam(value: string | undefined): string | undefined {
  const given = present(value);
  if (given === undefined || DOORS.some((door) => door === given)) return given;
  throw invalidValue('door', 'one_of', { values: DOORS.join(', ') });
}

/** The cursor of the page after `row`: its time and id, base64url. */
function cursorOf(row: RequestLogRow): string {
  return Buffer.from(JSON.stringify([row.timeMs, row.id])).toString('base64url');
}

function cursorParam(value: string | undefined): RequestCursor | undefined {
  const given = present(value);
  if (given === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(given, 'base64url').toString('utf8'));
    if (Array.isArray(parsed)) {
      const [timeMs, id]: unknown[] = parsed;
      if (typeof timeMs === 'number' && Number.isSafeInteger(timeMs) && typeof id === 'string') return { timeMs, id };
    }
  } catch {
    // reported below
  }
  throw invalidValue('cursor', 'must_be_cursor');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A record as the admin API shows it (docs/request-log.md). */
export function requestView(row: RequestLogRow) {
  return {
    id: row.id,
    correlation_id: row.correlationId,
    time: iso(row.timeMs),
    door: row.door,
    method: row.method,
    path: row.path,
    status: row.status,
    error_code: row.errorCode,
    key_id: row.keyId,
    key_prefix: row.keyPrefix,
    account: row.accountId,
    end_user: row.endUser,
    model: row.model,
    model_served: row.modelServed,
    node: row.node,
    affinity: row.affinity,
    stream: row.stream,
    attempts: row.attempts.map((attempt) => ({
      node: attempt.node,
      status: attempt.status,
      error_code: attempt.errorCode,
      started_ms: attempt.startedMs,
      first_byte_ms: attempt.firstByteMs,
      total_ms: attempt.totalMs,
    })),
    usage:
      row.usage === null
        ? null
        : {
            prompt_tokens: row.usage.promptTokens,
            completion_tokens: row.usage.completionTokens,
            cached_tokens: row.usage.cachedTokens,
            reasoning_tokens: row.usage.reasoningTokens,
          },
    cost_usd: row.costUsd,
    first_byte_ms: row.firstByteMs,
    total_ms: row.totalMs,
    trace_id: row.traceId,
  };
}

/** The list filter of `GET /admin/v1/requests` from its query string. */
export function requestFilterOf(query: QueryParams): RequestLogFilter {
  const fromMs = timeParam('from', query.from);
  const toMs = timeParam('to', query.to);
  return {
    fromMs,
    toMs,
    status: statusParam(query.status),
    errorCode: present(query.error_code),
    keyId: present(query.key),
    accountId: present(query.account),
    endUser: present(query.end_user),
    model: present(query.model),
    node: present(query.node),
    door: doorParam(query.door),
    after: cursorParam(query.cursor),
    limit: integerParam('limit', query.limit, DEFAULT_PAGE, 1, MAX_PAGE),
  };
}

/**
 * The request record's admin operations (PRODUCT decision 28): list with filters and
 * cursor paging, one record, stats over time buckets, and the counts of requests without a
 * valid key. The same for the admin API and the CLI working on a store.
 */
export class RequestLogQueries {
  constructor(
    private readonly rows: RequestLogRows,
    private readonly pending?: PendingRecords,
  ) {}

  async list(query: QueryParams) {
    const filter = requestFilterOf(query);
    await this.pending?.flush();
    // One more than the page tells whether there is a next page.
    const rows = await this.rows.list({ ...filter, limit: filter.limit + 1 });
    const page = rows.slice(0, filter.limit);
    const last = page.at(-1);
    return {
      object: 'list',
      data: page.map(requestView),
      next_cursor: rows.length > filter.limit && last !== undefined ? cursorOf(last) : null,
    };
  }

  async show(id: string) {
    await this.pending?.flush();
    const row = await this.rows.get(id);
    if (row === undefined) throw gatewayError('not_found', { params: { kind: 'request', id } });
    return { ...requestView(row), request_body: row.requestBody, reply_body: row.replyBody };
  }

  async stats(query: QueryParams, nowMs = Date.now()) {
    const bucketSeconds = integerParam('bucket', query.bucket, DEFAULT_BUCKET_SECONDS, 1, 86_400 * 31);
    const widthMs = bucketSeconds * 1000;
    const toMs = timeParam('to', query.to) ?? nowMs;
    const fromMs = timeParam('from', query.from) ?? toMs - DEFAULT_STATS_SPAN_MS;
    if (toMs <= fromMs) throw invalidValue('to', 'must_be_after_from');
    const firstStart = Math.floor(fromMs / widthMs) * widthMs;
    const count = Math.ceil((toMs - firstStart) / widthMs);
    if (count > MAX_BUCKETS)
      throw invalidValue('bucket', 'integer_in_range', {
        min: Math.ceil((toMs - fromMs) / MAX_BUCKETS / 1000),
        max: 86_400 * 31,
      });
    await this.pending?.flush();
    const found = await this.rows.stats({
      fromMs,
      toMs,
      bucketSeconds,
      model: present(query.model),
      door: doorParam(query.door),
    });
    const byStart = new Map(found.map((bucket) => [bucket.startMs, bucket]));
    const buckets = [];
    const totalCodes: Record<string, number> = {};
    let requests = 0;
    let errors = 0;
    for (let index = 0; index < count; index++) {
      const start = firstStart + index * widthMs;
      const bucket: RequestStatsBucket = byStart.get(start) ?? emptyBucket(start);
      requests += bucket.requests;
      errors += bucket.status4xx + bucket.status5xx;
      for (const [code, n] of Object.entries(bucket.errorCodes)) totalCodes[code] = (totalCodes[code] ?? 0) + n;
      buckets.push({
        start: iso(start),
        requests: bucket.requests,
        status_classes: { '2xx': bucket.status2xx, '4xx': bucket.status4xx, '5xx': bucket.status5xx },
        error_codes: bucket.errorCodes,
        first_byte_ms_p50: rounded(bucket.firstByteP50Ms),
        first_byte_ms_p95: rounded(bucket.firstByteP95Ms),
      });
    }
    return {
      from: iso(fromMs),
      to: iso(toMs),
      bucket_seconds: bucketSeconds,
      buckets,
      totals: {
        requests,
        errors,
        error_rate: requests === 0 ? 0 : Math.round((errors / requests) * 10_000) / 10_000,
        error_codes: totalCodes,
      },
    };
  }

  async unauthenticated(query: QueryParams, nowMs = Date.now()) {
    const fromMs = timeParam('from', query.from) ?? nowMs - DEFAULT_UNAUTHENTICATED_SPAN_MS;
    const limit = integerParam('limit', query.limit, DEFAULT_UNAUTHENTICATED_ROWS, 1, MAX_UNAUTHENTICATED_ROWS);
    await this.pending?.flush();
    const counts = await this.rows.unauthenticated(fromMs, limit);
    return {
      object: 'list',
      data: counts.map((count) => ({
        client_address: count.clientAddress,
        reason: count.reason,
        count: count.count,
        first_seen: iso(count.firstSeenMs),
        last_seen: iso(count.lastSeenMs),
      })),
    };
  }
}

function emptyBucket(startMs: number): RequestStatsBucket {
  return {
    startMs,
    requests: 0,
    status2xx: 0,
    status4xx: 0,
    status5xx: 0,
    errorCodes: {},
    firstByteP50Ms: null,
    firstByteP95Ms: null,
  };
}

function rounded(ms: number | null): number | null {
  return ms === null ? null : Math.round(ms * 100) / 100;
}
