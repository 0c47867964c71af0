import type { NodeConfig } from '../config/gateway-config.js';
import { gatewayError, isGatewayError, type GatewayError } from '../errors/gateway-error.js';

/** The attempt's own `total_ms` deadline (a `Cancellation.withTimeout` child), as the node call reports it. */
function isAttemptDeadline(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/**
 * A node's reply larger than `replies.max_json_bytes`: the request asked for it (choices, log
 * probabilities, output length), so it is the request's failure, not the node's (issue 28,
 * finding 9): 502 `reply_too_large`, never failed over, the node not blamed.
 */
export function replyTooLarge(node: NodeConfig): GatewayError {
  return gatewayError('reply_too_large', {
    params: { limit: node.replies.maxJsonBytes },
    upstream: { nodeId: node.id },
  });
}

/**
 * The failure of an attempt when the request's own shape explains it, else undefined
 * (issue 28, finding 9): a reply over the gateway's cap, or the attempt's `total_ms` passing
 * while the node was producing: it had sent its headers, or it was writing a non-streamed
 * reply, whose pace the first-byte deadline already bounds (firstByteDeadlineMs). Such a
 * failure ends the request (504 `upstream_timeout`, 502 `reply_too_large`) without counting
 * against the node or trying another one.
 */
export function requestOwnFailure(
  error: unknown,
  node: NodeConfig,
  stream: boolean,
  headersArrived: boolean,
): GatewayError | undefined {
  if (isGatewayError(error)) return error.code === 'reply_too_large' ? error : undefined;
  if (!isAttemptDeadline(error) || (stream && !headersArrived)) return undefined;
  return gatewayError('upstream_timeout', {
    retryable: false,
    params: { timeout_ms: node.timeouts.totalMs },
    upstream: { nodeId: node.id },
    cause: error,
  });
}

/**
 * Output tokens to bill for an attempt ended by `requestOwnFailure`, whose node reported no
 * usage: for a time-out, what a node at `min_tokens_per_second` wrote in the time it took;
 * for a reply over the cap, what that many bytes hold at the least (4 bytes a token); never
 * more than the request allowed (`outputTokens`, every choice together).
 */
export function unreportedOutputTokens(
  failure: GatewayError,
  node: NodeConfig,
  elapsedMs: number,
  outputTokens: number,
): number {
  const produced =
    failure.code === 'reply_too_large'
      ? Math.ceil(node.replies.maxJsonBytes / 4)
      : Math.floor((elapsedMs / 1000) * node.timeouts.minTokensPerSecond);
  return Math.min(outputTokens, produced);
}
