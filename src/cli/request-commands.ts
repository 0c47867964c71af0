import { CliUsageError } from './cli-usage-error.js';
import { formatRecord, formatTable } from './format-table.js';
import { recordOf, recordsOf } from './reply-fields.js';

/** The options `switchyard requests` reads. */
export interface RequestOptions {
  readonly status?: string;
  readonly model?: string;
  readonly key?: string;
  readonly account?: string;
  readonly 'end-user'?: string;
  readonly node?: string;
  readonly door?: string;
  readonly 'error-code'?: string;
  readonly since?: string;
  readonly from?: string;
  readonly to?: string;
  readonly limit?: string;
  readonly cursor?: string;
}

interface AttemptView {
  node: string;
  status: number | null;
  error_code: string | null;
  started_ms: number | null;
  first_byte_ms: number | null;
  total_ms: number;
}

const LIST_COLUMNS = [
  'time',
  'id',
  'door',
  'status',
  'error_code',
  'model',
  'node',
  'key_prefix',
  'account',
  'total_ms',
];
const SHOW_FIELDS = [
  'id',
  'correlation_id',
  'time',
  'door',
  'method',
  'path',
  'status',
  'error_code',
  'key_id',
  'key_prefix',
  'account',
  'end_user',
  'model',
  'model_served',
  'node',
  'affinity',
  'stream',
  'usage',
  'cost_usd',
  'first_byte_ms',
  'total_ms',
  'trace_id',
];
const UNITS_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Characters of the timeline bar that stands for the whole request. */
const TIMELINE_WIDTH = 40;

/** `--since 90s|15m|1h|7d`: the ISO time that long ago. */
export function sinceTime(text: string, nowMs = Date.now()): string {
  const [, count, unit] = /^(\d+)([smhd])$/.exec(text.trim()) ?? [];
  const unitMs = unit === undefined ? undefined : UNITS_MS[unit];
  if (unitMs === undefined)
    throw new CliUsageError(`--since must be a duration such as 90s, 15m, 1h or 7d, got "${text}"`);
  return new Date(nowMs - Number(count) * unitMs).toISOString();
}

/** The query string of `GET /admin/v1/requests` for the options given. */
export function requestListPath(options: RequestOptions): string {
  if (options.since !== undefined && options.from !== undefined)
    throw new CliUsageError('give --since or --from, not both');
  const entries = Object.entries({
    from: options.since === undefined ? options.from : sinceTime(options.since),
    to: options.to,
    status: options.status,
    error_code: options['error-code'],
    model: options.model,
    key: options.key,
    account: options.account,
    end_user: options['end-user'],
    node: options.node,
    door: options.door,
    limit: options.limit,
    cursor: options.cursor,
  }).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const query = new URLSearchParams(entries).toString();
  return `/admin/v1/requests${query === '' ? '' : `?${query}`}`;
}

/** A page of records as a table, with the command for the next page. */
export function printRequestList(value: unknown): string {
  const page = recordOf(value);
  const table = formatTable(recordsOf(page.data), LIST_COLUMNS);
  return typeof page.next_cursor === 'string' ? `${table}\n\nMore: add --cursor ${page.next_cursor}` : table;
}

function ms(value: number | null): string {
  return value === null ? '-' : `${value} ms`;
}

/**
 * The attempts as a timeline against the request's total time: one bar per attempt from
 * its start to its end, `|` where its first byte came.
 */
export function attemptTimeline(attempts: readonly AttemptView[], totalMs: number): string {
  const scale =
    TIMELINE_WIDTH / Math.max(totalMs, ...attempts.map((each) => (each.started_ms ?? 0) + each.total_ms), 1);
  const rows = attempts.map((attempt, index) => {
    const start = Math.min(TIMELINE_WIDTH - 1, Math.floor((attempt.started_ms ?? 0) * scale));
    const length = Math.max(1, Math.round(attempt.total_ms * scale));
    const bar = [...' '.repeat(start), ...'='.repeat(Math.min(length, TIMELINE_WIDTH - start))];
    if (attempt.first_byte_ms !== null) {
      const at = Math.min(bar.length - 1, start + Math.floor(attempt.first_byte_ms * scale));
      bar[at] = '|';
    }
    return {
      '#': index + 1,
      node: attempt.node,
      status: attempt.status,
      error_code: attempt.error_code,
      start: ms(attempt.started_ms === null ? null : Math.round(attempt.started_ms * 100) / 100),
      first_byte: ms(attempt.first_byte_ms),
      total: ms(attempt.total_ms),
      timeline: `[${bar.join('').padEnd(TIMELINE_WIDTH)}]`,
    };
  });
  return formatTable(rows, ['#', 'node', 'status', 'error_code', 'start', 'first_byte', 'total', 'timeline']);
}

/** One record: its fields, its attempts as a timeline, and its bodies when kept. */
export function printRequest(value: unknown): string {
  const record = value as Record<string, unknown> & {
    attempts: AttemptView[];
    total_ms: number;
    request_body?: string | null;
    reply_body?: string | null;
  };
  const parts = [formatRecord(record, SHOW_FIELDS), ''];
  if (record.attempts.length === 0) parts.push('Attempts: none (refused before any node was tried)');
  else
    parts.push(
      `Attempts (0 to ${record.total_ms} ms; | first byte):`,
      attemptTimeline(record.attempts, record.total_ms),
    );
  if (typeof record.request_body === 'string') parts.push('', 'Request body:', record.request_body);
  if (typeof record.reply_body === 'string') parts.push('', 'Reply body:', record.reply_body);
  return parts.join('\n');
}

/** `switchyard requests [filters]` and `switchyard requests show ID` as an admin call and a printer. */
export function planRequests(
  args: readonly (string | undefined)[],
  options: RequestOptions,
): { method: string; path: string; print: (value: unknown) => string } {
  const [action, id] = args;
  if (action === undefined || action === 'list') {
    return { method: 'GET', path: requestListPath(options), print: printRequestList };
  }
  if (action === 'show') {
    if (id === undefined || id === '') throw new CliUsageError('missing request ID');
    return { method: 'GET', path: `/admin/v1/requests/${encodeURIComponent(id)}`, print: printRequest };
  }
  throw new CliUsageError(`unknown command "requests ${action}"`);
}
