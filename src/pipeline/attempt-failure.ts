import { performance } from 'node:perf_hooks';
import { unreportedReplyUsage, type BookedUsage } from '../billing/booked-usage.js';
import type { AttemptRecord, RequestContext } from '../context/request-context.js';
import type { NodeCandidate } from '../routing/router.js';
import { asNodeFailure } from '../upstream/node-failure.js';
import { attemptRecord } from './attempt-record.js';
import type { ExecuteOptions } from './execute.js';
import { requestOwnFailure, unreportedOutputTokens } from './request-own-failure.js';

/** An attempt that did not answer well, and whether another node may be tried. */
export interface FailedAttempt {
  readonly ok: false;
  readonly failure: unknown;
  /** Whether another node may be tried after it. */
  readonly retryable: boolean;
  readonly attempt: AttemptRecord;
  /** The node's Retry-After on a failover status, in seconds. */
  readonly retryAfter?: number;
  /** The usage booked for an attempt the request's own shape ended while the node produced. */
  readonly usage?: BookedUsage;
}

/** How far an attempt got before it failed. */
export interface AttemptProgress {
  readonly started: number;
  /** The node's status, once its headers came. */
  readonly status?: number;
  readonly firstByteMs?: number;
  readonly retryAfter?: number;
}

/** The attempt's error code when the request itself was cut (the request record's `error_code` of the attempt). */
const ABORT_CODES = { client: 'client_aborted', deadline: 'upstream_timeout', shutdown: 'shutting_down' } as const;

/**
 * What an attempt's error means (spec 8.3–8.5): the request was cut (no verdict on the
 * node); the request's own shape explains it (billed, no verdict, no other node tried,
 * request-own-failure.ts); the gateway's own fault (the node neither blamed nor credited, no
 * other node tried); or the node's failure, counted in its health, another node tried when
 * it is retryable.
 */
export function attemptFailure(
  context: RequestContext,
  options: ExecuteOptions,
  candidate: NodeCandidate,
  progress: AttemptProgress,
  error: unknown,
): FailedAttempt {
  const { node, state } = candidate;
  const { started, status, firstByteMs } = progress;
  if (context.cancellation.aborted) {
    const cause = context.abortCause ?? 'deadline';
    const attempt = attemptRecord(context, node.id, started, {
      status,
      error: context.abortCause === 'client' ? 'client aborted' : cause,
      errorCode: ABORT_CODES[cause],
      firstByteMs,
    });
    return { ok: false, failure: context.cancellation.reason, retryable: false, attempt };
  }
  const ownFailure = requestOwnFailure(error, node, options.stream, status !== undefined);
  if (ownFailure !== undefined) {
    // The request's, not the node's: no verdict on the node, no other node tried, billed.
    const elapsedMs = performance.now() - started;
    const outputTokens = options.outputCap.tokens * (options.request.n ?? 1);
    const completionTokens = unreportedOutputTokens(ownFailure, node, elapsedMs, outputTokens);
    const usage = unreportedReplyUsage(options.request, completionTokens);
    const attempt = attemptRecord(context, node.id, started, {
      status,
      error: `${ownFailure.code} (the request's, not the node's)`,
      errorCode: ownFailure.code,
      firstByteMs,
    });
    return { ok: false, failure: ownFailure, retryable: ownFailure.retryable, attempt, usage };
  }
  const failure = asNodeFailure(node.id, error);
  if (failure.code === 'internal_error') {
    // The gateway's own fault: the node is neither blamed nor credited, and no other is tried.
    const attempt = attemptRecord(context, node.id, started, {
      status,
      error: 'gateway fault',
      errorCode: failure.code,
      firstByteMs,
    });
    return { ok: false, failure, retryable: false, attempt };
  }
  if (failure.retryable) state.recordFailure();
  else state.recordSuccess(firstByteMs);
  const attempt = attemptRecord(context, node.id, started, {
    status: failure.upstream?.status ?? status,
    error: String(failure.params.reason ?? failure.code),
    errorCode: failure.code,
    firstByteMs,
  });
  return { ok: false, failure, retryable: failure.retryable, attempt, retryAfter: progress.retryAfter };
}
