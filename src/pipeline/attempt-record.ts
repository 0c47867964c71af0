import { performance } from 'node:perf_hooks';
import type { AttemptRecord, RequestContext } from '../context/request-context.js';

/** What an attempt ended with, for its record: the node's status, and why it failed when it did. */
export interface AttemptEnd {
  readonly status?: number;
  /** Why it failed, in words; undefined on success. */
  readonly error?: string;
  readonly errorCode?: string;
  /** Ms from the attempt's start to the node's response headers; undefined when none came. */
  readonly firstByteMs?: number;
}

/**
 * The record of one try of one node, ended now (the request record's `attempts`, the log
 * line's); the request's trace is told the attempt ended.
 */
export function attemptRecord(context: RequestContext, node: string, started: number, end: AttemptEnd): AttemptRecord {
  const record: AttemptRecord = {
    node,
    ms: hundredths(performance.now() - started),
    status: end.status,
    error: end.error,
    errorCode: end.errorCode,
    startedMs: hundredths(started - context.startedAt),
    firstByteMs: end.firstByteMs === undefined ? undefined : hundredths(end.firstByteMs),
  };
  context.trace?.attemptEnded(end.status, end.error);
  return record;
}

function hundredths(ms: number): number {
  return Math.round(ms * 100) / 100;
}
