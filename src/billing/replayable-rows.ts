import type { UsageRow } from '../store/records.js';
import type { JournalRow } from './usage-journal.js';

/** The error code of a row booked from a progress record: the stream was cut by the process dying. */
export const STREAM_CUT_BY_CRASH = 'gateway_crashed';

/**
 * The rows to book from journal lines left by processes that are gone, one per request id:
 * its final row when it has one, else (a stream the crash cut) its latest progress record,
 * booked as estimated. Progress records are resolved here, across all files at once,
 * because the store keeps the first row of a request id it sees: a progress record must
 * never reach it before the final row of the same request.
 */
export function replayableRows(lines: readonly JournalRow[]): UsageRow[] {
  const final = new Map<string, UsageRow>();
  const progress = new Map<string, JournalRow>();
  for (const line of lines) {
    if (line.inFlight !== true) {
      if (!final.has(line.requestId)) final.set(line.requestId, line);
      continue;
    }
    const latest = progress.get(line.requestId);
    // The request's elapsed time orders its records, whichever file they are in.
    if (latest === undefined || line.latencyMs >= latest.latencyMs) progress.set(line.requestId, line);
  }
  const rows = [...final.values()];
  for (const [requestId, row] of progress) {
    if (final.has(requestId)) continue;
    const { inFlight: _inFlight, ...booked } = row;
    rows.push({ ...booked, estimated: true, errorCode: STREAM_CUT_BY_CRASH, finishReason: null });
  }
  return rows;
}
