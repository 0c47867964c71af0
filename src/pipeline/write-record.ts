import type { RequestRecord, RequestRun } from '../context/request-context.js';

/**
 * Writes what the pipeline learned of a request into its request record (what the log line,
 * the request log, the trace and the metrics read), from the run's values: the one place
 * the pipeline writes the record. `costUsd` is what settling booked, once it did.
 */
export function writeRecord(record: RequestRecord, run: RequestRun, costUsd?: number): void {
  record.frontDoor = run.frontDoor;
  record.model = run.model;
  record.modelServed = run.modelServed;
  record.endUser = run.endUser;
  record.stream = run.stream;
  record.attempts = run.attempts;
  record.affinity = run.affinity;
  const booked = run.booked;
  if (booked !== undefined) {
    record.usage = booked.usage;
    // Shown only when it is one (`usage_estimated` is left out of a node-reported usage's line).
    if (booked.estimated) record.usageEstimated = true;
    if (booked.reportedFeatures !== undefined) record.reportedFeatures = booked.reportedFeatures;
  }
  record.finishReason = run.finishReason;
  record.firstByteMs = run.firstByteMs;
  if (run.streamErrorCode !== undefined) record.errorCode = run.streamErrorCode;
  if (costUsd !== undefined) record.costUsd = costUsd;
}
