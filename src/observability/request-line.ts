import type { Usage } from '../protocol/openai/chat-response-types.js';
import type { AttemptRecord, RequestContext } from '../context/request-context.js';
import { truncateForDisplay } from '../errors/truncate-for-display.js';

/** Longest request body kept in a log line when `log.bodies` is on. */
const MAX_LOGGED_BODY = 64 * 1024;

/** What one request's log line is made of, besides its context. */
export interface RequestLineSource {
  readonly context: RequestContext;
  readonly method: string | undefined;
  readonly path: string;
  readonly totalMs: number;
}

/** One node attempt in a request's log line. */
export interface RequestLineAttempt {
  node: string;
  ms: number | null;
  status?: number | null;
  error?: string;
}

/** The billed tokens in a request's log line, flat. */
export interface RequestLineUsage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  cached_tokens: number | null;
  reasoning_tokens: number | null;
}

/** The fields of a request's log line, in the order they are written; undefined ones are left out. */
export interface RequestLineFields {
  request_id: string;
  correlation_id: string;
  method?: string;
  path: string;
  status?: number | null;
  error_code?: string;
  key_prefix?: string;
  account?: string;
  /** The client-facing protocol: chat, messages or responses. */
  front_door: string;
  model?: string;
  stream: boolean;
  node?: string;
  attempts?: RequestLineAttempt[];
  usage?: RequestLineUsage;
  usage_estimated?: boolean;
  cost_usd: number | null;
  finish_reason?: string;
  first_byte_ms?: number | null;
  total_ms: number | null;
  client_aborted: boolean;
  request_body?: string;
}

/**
 * The fields of a request's log line, for the logger to write, in their order. A field
 * without a value is undefined, which the logger leaves out (as JSON.stringify does);
 * `cost_usd` is null until a cost is booked. `usage` is the tokens the request is billed
 * on, flat. The client's model and path are cut to a bounded length with a marker
 * (truncateForDisplay): a 1 MB model name makes a short line. Non-finite numbers are null.
 */
export function requestLineFields({ context, method, path, totalMs }: RequestLineSource): RequestLineFields {
  const record = context.record;
  const attempts = record.attempts;
  const last = attempts[attempts.length - 1];
  return {
    request_id: context.requestId,
    correlation_id: context.correlationId,
    method,
    path: truncateForDisplay(path),
    status: record.status === undefined ? undefined : number(record.status),
    error_code: record.errorCode,
    key_prefix: record.keyPrefix,
    account: record.accountId,
    front_door: record.frontDoor,
    model: record.model === undefined ? undefined : truncateForDisplay(record.model),
    stream: record.stream,
    node: last?.node,
    attempts: last === undefined ? undefined : attempts.map(attemptFields),
    usage: record.usage === undefined ? undefined : usageFields(record.usage),
    usage_estimated: record.usageEstimated,
    cost_usd: number(record.costUsd),
    finish_reason: record.finishReason,
    first_byte_ms: record.firstByteMs === undefined ? undefined : number(record.firstByteMs),
    total_ms: number(totalMs),
    client_aborted: record.clientAborted,
    request_body: record.requestBody?.slice(0, MAX_LOGGED_BODY),
  };
}

function attemptFields(attempt: AttemptRecord): RequestLineAttempt {
  return {
    node: attempt.node,
    ms: number(attempt.ms),
    status: attempt.status === undefined ? undefined : number(attempt.status),
    error: attempt.error,
  };
}

/** The billed tokens (`bookUsage`: the node's counts or an estimate); cached and reasoning 0 when not given. */
function usageFields(usage: Usage): RequestLineUsage {
  return {
    prompt_tokens: number(usage.prompt_tokens),
    completion_tokens: number(usage.completion_tokens),
    total_tokens: number(usage.total_tokens),
    cached_tokens: number(usage.prompt_tokens_details?.cached_tokens ?? 0),
    reasoning_tokens: number(usage.completion_tokens_details?.reasoning_tokens ?? 0),
  };
}

/** A number as JSON writes it: `null` for NaN, ±Infinity and a missing value. */
function number(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
