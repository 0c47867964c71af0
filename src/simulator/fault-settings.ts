import { SimulatorError } from './simulator-error.js';
import { isRecord } from '../validation/is-record.js';
import { fieldOf } from '../validation/field-of.js';

/** An injected HTTP error: `status` with `body` (JSON; a string is sent as text/plain) and extra `headers`. */
export interface FailureFault {
  status: number;
  body?: unknown;
  /** Extra response headers, e.g. `{"retry-after": "1"}` on a 429. */
  headers?: Record<string, string>;
}

/** Faults a simulated node injects into chat-completion requests. */
export interface FaultSettings {
  /** The first `count` requests (counted from when the faults were set) fail. */
  failFirst?: FailureFault & { count: number };
  /** Each request fails with probability `ratio` (seeded PRNG, deterministic). */
  failRatio?: FailureFault & { ratio: number };
  /** The first N requests get their connection destroyed without an answer. */
  resetFirst?: number;
  /** Each request is reset with this probability. */
  resetRatio?: number;
  /** Extra delay before the first byte, on top of the node's `firstByteMs`. */
  firstByteDelayMs?: number;
  /** Streaming only: destroy the socket after this many `data:` events (no `[DONE]`). */
  cutAfterChunks?: number;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === 'string');
}

function invalid(param: string, expected: string): SimulatorError {
  return new SimulatorError(400, `Invalid fault setting '${param}': expected ${expected}.`, {
    param,
    code: 'invalid_value',
  });
}

function readCount(value: unknown, param: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalid(param, 'an integer >= 0');
  return value;
}

function readRatio(value: unknown, param: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw invalid(param, 'a number between 0 and 1');
  return value;
}

function readFailure(value: unknown, param: string): FailureFault | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw invalid(param, 'an object');
  const status = value.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
    throw invalid(`${param}.status`, 'an HTTP status between 200 and 599');
  }
  const headers = value.headers;
  if (headers !== undefined && !isStringRecord(headers))
    throw invalid(`${param}.headers`, 'an object of string values');
  return {
    status,
    ...(value.body === undefined ? {} : { body: value.body }),
    ...(headers === undefined ? {} : { headers }),
  };
}

/** Validates fault settings (from JSON or code); throws a 400 SimulatorError naming the bad field. */
export function parseFaultSettings(value: unknown): FaultSettings {
  if (!isRecord(value)) throw invalid('faults', 'a JSON object');
  const settings: FaultSettings = {};
  const failFirst = readFailure(value.failFirst, 'failFirst');
  if (failFirst !== undefined) {
    const count = readCount(fieldOf(value.failFirst, 'count'), 'failFirst.count');
    if (count === undefined) throw invalid('failFirst.count', 'an integer >= 0');
    settings.failFirst = { ...failFirst, count };
  }
  const failRatio = readFailure(value.failRatio, 'failRatio');
  if (failRatio !== undefined) {
    const ratio = readRatio(fieldOf(value.failRatio, 'ratio'), 'failRatio.ratio');
    if (ratio === undefined) throw invalid('failRatio.ratio', 'a number between 0 and 1');
    settings.failRatio = { ...failRatio, ratio };
  }
  const resetFirst = readCount(value.resetFirst, 'resetFirst');
  if (resetFirst !== undefined) settings.resetFirst = resetFirst;
  const resetRatio = readRatio(value.resetRatio, 'resetRatio');
  if (resetRatio !== undefined) settings.resetRatio = resetRatio;
  const firstByteDelayMs = readCount(value.firstByteDelayMs, 'firstByteDelayMs');
  if (firstByteDelayMs !== undefined) settings.firstByteDelayMs = firstByteDelayMs;
  const cutAfterChunks = readCount(value.cutAfterChunks, 'cutAfterChunks');
  if (cutAfterChunks !== undefined) settings.cutAfterChunks = cutAfterChunks;
  return settings;
}
