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

/**
 * The members of a request's log line as JSON text, without the braces:
 * `"request_id":…,"correlation_id":…,…,"client_aborted":false`, in this order: request_id,
 * correlation_id, method, path, status, error_code, key_prefix, account, front_door, model,
 * model_served, end_user, affinity (these three when set), stream, node, attempts, usage, usage_estimated, cost_usd, finish_reason, first_byte_ms,
 * total_ms, client_aborted, request_body. Written member by member, every string through
 * JSON.stringify (client input such as the model or path is escaped), rather than as an
 * object of twenty-odd fields for JSON.stringify to walk: 2.4 against 3.4–3.8 µs for a
 * chat request's line (`node` in-process, one core of this VM), and no object per request
 * for the collector. Members without a value are left out,
 * as JSON.stringify would; `cost_usd` is null until a cost is booked; non-finite numbers are
 * null. `status` is what the client got, 499 (`error_code` client_aborted) for a client gone
 * before any answer was sent.
 * `usage` is the tokens the request is billed on, flat. The client's model and path
 * are cut to a bounded length with a marker (truncateForDisplay): a 1 MB model name makes a
 * short line.
 */
export function requestLineMembers({ context, method, path, totalMs }: RequestLineSource): string {
  const record = context.record;
  let line = `"request_id":${JSON.stringify(context.requestId)},"correlation_id":${JSON.stringify(context.correlationId)}`;
  if (method !== undefined) line += `,"method":${JSON.stringify(method)}`;
  line += `,"path":${JSON.stringify(truncateForDisplay(path))}`;
  // A client gone before any answer was sent (waiting for the node, or for its stored
  // response's save) got none: 499 client_aborted, as the request record, metrics and trace say.
  const answerless = record.status === undefined && record.clientAborted;
  const status = answerless ? 499 : record.status;
  if (status !== undefined) line += `,"status":${number(status)}`;
  const errorCode = answerless ? (record.errorCode ?? 'client_aborted') : record.errorCode;
  if (errorCode !== undefined) line += `,"error_code":${JSON.stringify(errorCode)}`;
  if (record.keyPrefix !== undefined) line += `,"key_prefix":${JSON.stringify(record.keyPrefix)}`;
  if (record.accountId !== undefined) line += `,"account":${JSON.stringify(record.accountId)}`;
  // Typed as always set; a record made outside the server (tests, tools) may lack it.
  if (typeof record.frontDoor === 'string') line += `,"front_door":${JSON.stringify(record.frontDoor)}`;
  if (record.model !== undefined) line += `,"model":${JSON.stringify(truncateForDisplay(record.model))}`;
  if (record.modelServed !== undefined) line += `,"model_served":${JSON.stringify(record.modelServed)}`;
  if (record.endUser !== undefined) line += `,"end_user":${JSON.stringify(record.endUser)}`;
  if (record.affinity !== undefined) line += `,"affinity":${JSON.stringify(record.affinity)}`;
  line += `,"stream":${record.stream}`;
  const attempts = record.attempts;
  if (attempts.length > 0) {
    line += `,"node":${JSON.stringify(attempts.at(-1)?.node)},"attempts":[`;
    let first = true;
    for (const attempt of attempts) {
      line += (first ? '' : ',') + attemptJson(attempt);
      first = false;
    }
    line += ']';
  }
  if (record.usage !== undefined) line += `,"usage":${usageJson(record.usage)}`;
  if (record.usageEstimated !== undefined) line += `,"usage_estimated":${record.usageEstimated}`;
  line += `,"cost_usd":${number(record.costUsd)}`;
  if (record.finishReason !== undefined) line += `,"finish_reason":${JSON.stringify(record.finishReason)}`;
  if (record.firstByteMs !== undefined) line += `,"first_byte_ms":${number(record.firstByteMs)}`;
  line += `,"total_ms":${number(totalMs)},"client_aborted":${record.clientAborted}`;
  if (record.requestBody !== undefined) {
    line += `,"request_body":${JSON.stringify(record.requestBody.slice(0, MAX_LOGGED_BODY))}`;
  }
  return line;
}

function attemptJson(attempt: AttemptRecord): string {
  let json = `{"node":${JSON.stringify(attempt.node)},"ms":${number(attempt.ms)}`;
  if (attempt.status !== undefined) json += `,"status":${number(attempt.status)}`;
  if (attempt.error !== undefined) json += `,"error":${JSON.stringify(attempt.error)}`;
  return `${json}}`;
}

/** The billed tokens (`bookedUsage`: the node's counts or an estimate); cached and reasoning 0 when not given. */
function usageJson(usage: Usage): string {
  return (
    `{"prompt_tokens":${number(usage.prompt_tokens)},"completion_tokens":${number(usage.completion_tokens)}` +
    `,"total_tokens":${number(usage.total_tokens)}` +
    `,"cached_tokens":${number(usage.prompt_tokens_details?.cached_tokens ?? 0)}` +
    `,"reasoning_tokens":${number(usage.completion_tokens_details?.reasoning_tokens ?? 0)}}`
  );
}

/** A number as JSON writes it: `null` for NaN, ±Infinity and a missing value, so the line stays JSON. */
function number(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
