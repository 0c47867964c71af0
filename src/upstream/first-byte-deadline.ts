import type { TimeoutSettings } from '../config/gateway-config.js';

/**
 * How long a node may take to send a reply's headers. A stream's headers come before its
 * first token: `first_byte_ms`. A non-streamed reply comes whole, so its headers wait for all
 * of its output: `first_byte_ms` plus the output the request allows (every choice together)
 * at `min_tokens_per_second`, the slowest rate of a healthy node. A node past that deadline
 * is at fault; a reply that is simply long is not (issue 28, finding 9). Never more than
 * `total_ms`, which ends the attempt anyway.
 */
export function firstByteDeadlineMs(timeouts: TimeoutSettings, stream: boolean, outputTokens: number): number {
  if (stream) return timeouts.firstByteMs;
  const writingMs = Math.ceil((outputTokens / timeouts.minTokensPerSecond) * 1000);
  return Math.min(timeouts.totalMs, timeouts.firstByteMs + writingMs);
}
