import type {
  RequestAttemptRow,
  RequestLogFilter,
  RequestLogPurge,
  RequestLogRow,
  RequestLogRows,
  RequestStatsBucket,
  RequestStatsQuery,
  UnauthenticatedCount,
} from '../request-log-rows.js';
import type { SqlQueryable } from './sql-driver.js';

const LIST_COLUMNS = `id, correlation_id, extract(epoch FROM time) * 1000 AS time_ms, door, method, path, status,
  error_code, key_id, key_prefix, account_id, end_user, model, model_served, node, affinity, stream, attempts,
  prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, cost_usd, first_byte_ms, total_ms, trace_id`;

interface Row {
  id: string;
  correlation_id: string;
  time_ms: unknown;
  door: string;
  method: string | null;
  path: string;
  status: number | null;
  error_code: string | null;
  key_id: string | null;
  key_prefix: string | null;
  account_id: string | null;
  end_user: string | null;
  model: string | null;
  model_served: string | null;
  node: string | null;
  affinity: string | null;
  stream: boolean;
  attempts: unknown;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cached_tokens: number | null;
  reasoning_tokens: number | null;
  cost_usd: number | null;
  first_byte_ms: number | null;
  total_ms: number;
  trace_id: string | null;
  request_body?: string | null;
  reply_body?: string | null;
}

interface StoredAttempt {
  node: string;
  status: number | null;
  error_code: string | null;
  started_ms: number | null;
  first_byte_ms: number | null;
  total_ms: number;
}

function rowOf(row: Row): RequestLogRow {
  const attempts = (typeof row.attempts === 'string' ? JSON.parse(row.attempts) : row.attempts) as StoredAttempt[];
  return {
    id: row.id,
    correlationId: row.correlation_id,
    timeMs: Math.round(Number(row.time_ms)),
    door: row.door,
    method: row.method,
    path: row.path,
    status: row.status,
    errorCode: row.error_code,
    keyId: row.key_id,
    keyPrefix: row.key_prefix,
    accountId: row.account_id,
    endUser: row.end_user,
    model: row.model,
    modelServed: row.model_served,
    node: row.node,
    affinity: row.affinity,
    stream: row.stream,
    attempts: attempts.map((attempt): RequestAttemptRow => ({
      node: attempt.node,
      status: attempt.status,
      errorCode: attempt.error_code,
      startedMs: attempt.started_ms,
      firstByteMs: attempt.first_byte_ms,
      totalMs: attempt.total_ms,
    })),
    usage:
      row.prompt_tokens === null
        ? null
        : {
            promptTokens: row.prompt_tokens,
            completionTokens: row.completion_tokens ?? 0,
            cachedTokens: row.cached_tokens ?? 0,
            reasoningTokens: row.reasoning_tokens ?? 0,
          },
    costUsd: row.cost_usd === null ? null : Number(row.cost_usd),
    firstByteMs: row.first_byte_ms === null ? null : Number(row.first_byte_ms),
    totalMs: Number(row.total_ms),
    traceId: row.trace_id,
    requestBody: row.request_body ?? null,
    replyBody: row.reply_body ?? null,
  };
}

/** A row as one element of the JSON array the insert reads with jsonb_to_recordset. */
function storedRow(row: RequestLogRow) {
  return {
    id: row.id,
    correlation_id: row.correlationId,
    time: new Date(row.timeMs).toISOString(),
    door: row.door,
    method: row.method,
    path: row.path,
    status: row.status,
    error_code: row.errorCode,
    key_id: row.keyId,
    key_prefix: row.keyPrefix,
    account_id: row.accountId,
    end_user: row.endUser,
    model: row.model,
    model_served: row.modelServed,
    node: row.node,
    nodes: [...new Set(row.attempts.map((attempt) => attempt.node))],
    affinity: row.affinity,
    stream: row.stream,
    attempts: row.attempts.map((attempt): StoredAttempt => ({
      node: attempt.node,
      status: attempt.status,
      error_code: attempt.errorCode,
      started_ms: attempt.startedMs,
      first_byte_ms: attempt.firstByteMs,
      total_ms: attempt.totalMs,
    })),
    prompt_tokens: row.usage?.promptTokens ?? null,
    completion_tokens: row.usage?.completionTokens ?? null,
    cached_tokens: row.usage?.cachedTokens ?? null,
    reasoning_tokens: row.usage?.reasoningTokens ?? null,
    cost_usd: row.costUsd,
    first_byte_ms: row.firstByteMs,
    total_ms: row.totalMs,
    trace_id: row.traceId,
    request_body: row.requestBody,
    reply_body: row.replyBody,
  };
}

const RECORDSET = `id text, correlation_id text, time timestamptz, door text, method text, path text, status integer,
  error_code text, key_id text, key_prefix text, account_id text, end_user text, model text, model_served text,
  node text, nodes text[], affinity text, stream boolean, attempts jsonb, prompt_tokens integer,
  completion_tokens integer, cached_tokens integer, reasoning_tokens integer, cost_usd double precision,
  first_byte_ms double precision, total_ms double precision, trace_id text, request_body text, reply_body text`;
const INSERT_COLUMNS = `id, correlation_id, time, door, method, path, status, error_code, key_id, key_prefix,
  account_id, end_user, model, model_served, node, nodes, affinity, stream, attempts, prompt_tokens,
  completion_tokens, cached_tokens, reasoning_tokens, cost_usd, first_byte_ms, total_ms, trace_id, request_body,
  reply_body`;

/** The WHERE clause and its parameters of a list or stats query. */
class Conditions {
  readonly clauses: string[] = [];
  readonly params: unknown[] = [];

  equal(column: string, value: unknown): void {
    if (value === undefined) return;
    this.params.push(value);
    this.clauses.push(`${column} = $${this.params.length}`);
  }

  value(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  get where(): string {
    return this.clauses.length === 0 ? '' : `WHERE ${this.clauses.join(' AND ')}`;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The `request_log` tables (migration 10). Times are the records' own (the writing instance's clock). */
export class SqlRequestLog implements RequestLogRows {
  constructor(private readonly db: SqlQueryable) {}

  async insert(rows: readonly RequestLogRow[], unauthenticated: readonly UnauthenticatedCount[]): Promise<void> {
    if (rows.length > 0) {
      await this.db.query(
        `INSERT INTO request_log (${INSERT_COLUMNS})
         SELECT ${INSERT_COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS x(${RECORDSET})
         ON CONFLICT (id) DO NOTHING`,
        [JSON.stringify(rows.map(storedRow))],
      );
    }
    if (unauthenticated.length > 0) {
      await this.db.query(
        `INSERT INTO request_log_unauthenticated AS u (minute, client_address, reason, count, first_seen, last_seen)
         SELECT date_trunc('minute', x.first_seen), x.client_address, x.reason, x.count, x.first_seen, x.last_seen
         FROM jsonb_to_recordset($1::jsonb)
           AS x(client_address text, reason text, count bigint, first_seen timestamptz, last_seen timestamptz)
         ON CONFLICT (minute, client_address, reason) DO UPDATE SET
           count = u.count + excluded.count,
           first_seen = least(u.first_seen, excluded.first_seen),
           last_seen = greatest(u.last_seen, excluded.last_seen)`,
        [
          JSON.stringify(
            unauthenticated.map((count) => ({
              client_address: count.clientAddress,
              reason: count.reason,
              count: count.count,
              first_seen: iso(count.firstSeenMs),
              last_seen: iso(count.lastSeenMs),
            })),
          ),
        ],
      );
    }
  }

  async list(filter: RequestLogFilter): Promise<RequestLogRow[]> {
    const where = new Conditions();
    if (filter.fromMs !== undefined) where.clauses.push(`time >= ${where.value(iso(filter.fromMs))}`);
    if (filter.toMs !== undefined) where.clauses.push(`time < ${where.value(iso(filter.toMs))}`);
    if (filter.status !== undefined) {
      if ('class' in filter.status) {
        const low = filter.status.class * 100;
        where.clauses.push(`status >= ${where.value(low)} AND status < ${where.value(low + 100)}`);
      } else where.equal('status', filter.status.exact);
    }
    where.equal('error_code', filter.errorCode);
    where.equal('key_id', filter.keyId);
    where.equal('account_id', filter.accountId);
    where.equal('end_user', filter.endUser);
    if (filter.model !== undefined) {
      const model = where.value(filter.model);
      where.clauses.push(`(model = ${model} OR model_served = ${model})`);
    }
    if (filter.node !== undefined) where.clauses.push(`nodes @> ARRAY[${where.value(filter.node)}]::text[]`);
    where.equal('door', filter.door);
    if (filter.after !== undefined) {
      where.clauses.push(
        `(time, id) < (${where.value(iso(filter.after.timeMs))}::timestamptz, ${where.value(filter.after.id)})`,
      );
    }
    const rows = await this.db.query<Row>(
      `SELECT ${LIST_COLUMNS} FROM request_log ${where.where} ORDER BY time DESC, id DESC LIMIT ${where.value(filter.limit)}`,
      where.params,
    );
    return rows.map(rowOf);
  }

  async get(id: string): Promise<RequestLogRow | undefined> {
    const [row] = await this.db.query<Row>(
      `SELECT ${LIST_COLUMNS}, request_body, reply_body FROM request_log WHERE id = $1`,
      [id],
    );
    return row === undefined ? undefined : rowOf(row);
  }

  async stats(query: RequestStatsQuery): Promise<RequestStatsBucket[]> {
    const where = new Conditions();
    const width = where.value(query.bucketSeconds);
    where.clauses.push(`time >= ${where.value(iso(query.fromMs))}`);
    where.clauses.push(`time < ${where.value(iso(query.toMs))}`);
    where.equal('door', query.door);
    if (query.model !== undefined) {
      const model = where.value(query.model);
      where.clauses.push(`(model = ${model} OR model_served = ${model})`);
    }
    const bucket = `floor(extract(epoch FROM time) / ${width}::integer) * ${width}::integer * 1000`;
    const [buckets, codes] = await Promise.all([
      this.db.query<{
        start_ms: unknown;
        requests: unknown;
        s2: unknown;
        s4: unknown;
        s5: unknown;
        p50: number | null;
        p95: number | null;
      }>(
        `SELECT ${bucket} AS start_ms, count(*) AS requests,
           count(*) FILTER (WHERE status >= 200 AND status < 300) AS s2,
           count(*) FILTER (WHERE status >= 400 AND status < 500) AS s4,
           count(*) FILTER (WHERE status >= 500) AS s5,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY first_byte_ms) AS p50,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY first_byte_ms) AS p95
         FROM request_log ${where.where} GROUP BY 1 ORDER BY 1`,
        where.params,
      ),
      this.db.query<{ start_ms: unknown; error_code: string; requests: unknown }>(
        `SELECT ${bucket} AS start_ms, error_code, count(*) AS requests
         FROM request_log ${where.where} AND status >= 400 AND error_code IS NOT NULL GROUP BY 1, 2`,
        where.params,
      ),
    ]);
    const codesByBucket = new Map<number, Record<string, number>>();
    for (const row of codes) {
      const start = Math.round(Number(row.start_ms));
      const counts = codesByBucket.get(start) ?? {};
      counts[row.error_code] = Number(row.requests);
      codesByBucket.set(start, counts);
    }
    return buckets.map((row) => {
      const startMs = Math.round(Number(row.start_ms));
      return {
        startMs,
        requests: Number(row.requests),
        status2xx: Number(row.s2),
        status4xx: Number(row.s4),
        status5xx: Number(row.s5),
        errorCodes: codesByBucket.get(startMs) ?? {},
        firstByteP50Ms: row.p50 === null ? null : Number(row.p50),
        firstByteP95Ms: row.p95 === null ? null : Number(row.p95),
      };
    });
  }

  async unauthenticated(fromMs: number, limit: number): Promise<UnauthenticatedCount[]> {
    const rows = await this.db.query<{
      client_address: string;
      reason: string;
      count: unknown;
      first_ms: unknown;
      last_ms: unknown;
    }>(
      `SELECT client_address, reason, sum(count) AS count,
         extract(epoch FROM min(first_seen)) * 1000 AS first_ms, extract(epoch FROM max(last_seen)) * 1000 AS last_ms
       FROM request_log_unauthenticated WHERE last_seen >= $1
       GROUP BY client_address, reason ORDER BY 3 DESC, 5 DESC LIMIT $2`,
      [iso(fromMs), limit],
    );
    return rows.map((row) => ({
      clientAddress: row.client_address,
      reason: row.reason,
      count: Number(row.count),
      firstSeenMs: Math.round(Number(row.first_ms)),
      lastSeenMs: Math.round(Number(row.last_ms)),
    }));
  }

  async purge(policy: RequestLogPurge): Promise<number> {
    const [old] = await this.db.query<{ removed: unknown }>(
      'WITH gone AS (DELETE FROM request_log WHERE time < $1 RETURNING 1) SELECT count(*) AS removed FROM gone',
      [iso(policy.beforeMs)],
    );
    const [over] = await this.db.query<{ removed: unknown }>(
      `WITH gone AS (
         DELETE FROM request_log WHERE (time, id) <= (
           SELECT time, id FROM request_log ORDER BY time DESC, id DESC OFFSET $1 LIMIT 1
         ) RETURNING 1
       ) SELECT count(*) AS removed FROM gone`,
      [policy.maxRows],
    );
    await this.db.query(
      `UPDATE request_log SET request_body = NULL, reply_body = NULL
       WHERE time < $1 AND (request_body IS NOT NULL OR reply_body IS NOT NULL)`,
      [iso(policy.bodiesBeforeMs)],
    );
    await this.db.query('DELETE FROM request_log_unauthenticated WHERE last_seen < $1', [iso(policy.beforeMs)]);
    return Number(old?.removed ?? 0) + Number(over?.removed ?? 0);
  }
}
