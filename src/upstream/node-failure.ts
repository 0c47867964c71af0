import { gatewayError, isGatewayError, type GatewayError } from '../errors/gateway-error.js';
import { describeNetworkError } from './describe-network-error.js';

/**
 * A failure talking to a node (refused, reset, time-out, TLS…) as a retryable
 * bad_gateway, or the GatewayError itself when it already is one.
 */
export function asNodeFailure(nodeId: string, error: unknown): GatewayError {
  if (isGatewayError(error)) return error;
  return gatewayError('bad_gateway', {
    retryable: true,
    params: { reason: `node ${nodeId}: ${describeNetworkError(error)}` },
    upstream: { nodeId },
    cause: error,
  });
}

/** A node's 2xx reply that is not what the protocol promises (an HTML page, an empty stream). */
export function invalidReply(nodeId: string, reason: string): GatewayError {
  return gatewayError('bad_gateway', {
    retryable: true,
    params: { reason: `node ${nodeId}: ${reason}` },
    upstream: { nodeId },
  });
}
