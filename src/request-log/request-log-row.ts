import type { AttemptRecord, RequestContext } from '../context/request-context.js';
import { truncateForDisplay } from '../errors/truncate-for-display.js';
import type { RequestAttemptRow, RequestLogRow } from '../store/request-log-rows.js';

/** Client text as the store can keep it: cut for display, without NUL (PostgreSQL text refuses it). */
function clientText(value: string | undefined): string | null {
  if (value === undefined) return null;
  const cut = truncateForDisplay(value);
  return cut.includes('\u0000') ? cut.replaceAll('\u0000', '\uFFFD') : cut;
}

function attemptRow(attempt: AttemptRecord, requestTotalMs: number, extendToEnd: boolean): RequestAttemptRow {
  const startedMs = attempt.startedMs ?? null;
  return {
    node: attempt.node,
    status: attempt.status ?? null,
    errorCode: attempt.errorCode ?? null,
    startedMs,
    firstByteMs: attempt.firstByteMs ?? null,
    // A stream's attempt lasts until the stream ends, not until its first event.
    totalMs:
      extendToEnd && startedMs !== null
        ? Math.max(attempt.ms, Math.round((requestTotalMs - startedMs) * 100) / 100)
        : attempt.ms,
  };
}

/**
 * A finished request's record (PRODUCT decision 28), from its context. Cheap: fields
 * copied, no serialization; the bodies (when kept) go as they are, the writer redacts and
 * cuts them off the request path. A client that left before the end is 499 `client_aborted`.
 */
export function requestLogRow(
  context: RequestContext,
  method: string | undefined,
  path: string,
  totalMs: number,
  nowMs: number,
): RequestLogRow {
  const record = context.record;
  const attempts = record.attempts;
  const last = attempts.length === 0 ? undefined : attempts[attempts.length - 1];
  const streamed = record.stream && last?.status !== undefined && last.status >= 200 && last.status < 300;
  const usage = record.usage;
  const keepBodies = record.replyBody !== undefined;
  return {
    id: context.requestId,
    correlationId: context.correlationId,
    timeMs: Math.round(nowMs - totalMs),
    door: record.frontDoor,
    method: method ?? null,
    path: clientText(path) ?? '',
    status: record.clientAborted ? 499 : (record.status ?? null),
    errorCode: record.clientAborted ? 'client_aborted' : (record.errorCode ?? null),
    keyId: record.keyId ?? null,
    keyPrefix: record.keyPrefix ?? null,
    accountId: record.accountId ?? null,
    endUser: clientText(record.endUser),
    model: clientText(record.model),
    modelServed: record.modelServed ?? null,
    node: last?.node ?? null,
    affinity: record.affinity ?? null,
    stream: record.stream,
    attempts: attempts.map((attempt, index) => attemptRow(attempt, totalMs, streamed && index === attempts.length - 1)),
    usage:
      usage === undefined
        ? null
        : {
            promptTokens: usage.prompt_tokens,
            completionTokens: usage.completion_tokens,
            cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
            reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
          },
    costUsd: record.costUsd ?? null,
    firstByteMs: record.firstByteMs ?? null,
    totalMs,
    traceId: record.traceId ?? null,
    requestBody: keepBodies ? (record.requestBody ?? null) : null,
    replyBody: keepBodies ? (record.replyBody?.text ?? null) : null,
  };
}
