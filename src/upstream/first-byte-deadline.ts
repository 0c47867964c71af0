import type { TimeoutSettings } from '../config/gateway-config.js';

/**
 * How long a node may take to send the headers of a non-streamed reply, in ms; 0 for no
 * deadline of its own. A stream's headers come before its first token (`first_byte_ms`, the
 * pool's setting); a non-streamed reply comes whole, so its headers wait for all of its
 * output: `first_byte_ms` plus the output the request allows (every choice together) at
 * `min_tokens_per_second`, the slowest rate of a healthy node. A node past that deadline is
 * at fault; a reply that is simply long is not (issue 28, finding 9). When that reaches the
 * attempt's deadline, that deadline alone bounds the wait (0: the two must not race to say
 * whose fault it was).
 */
export function firstByteDeadlineMs(
  timeouts: TimeoutSettings,
  outputTokens: number,
  /** The attempt's own deadline: the node's `total_ms` or the request's, whichever is sooner. */
  attemptTotalMs: number,
): number {
  const deadline = timeouts.firstByteMs + Math.ceil((outputTokens / timeouts.minTokensPerSecond) * 1000);
  return deadline < attemptTotalMs ? deadline : 0;
}
