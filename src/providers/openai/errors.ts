import { gatewayError, type GatewayError } from '../../errors/gateway-error.js';
import type { CallContext } from '../types.js';

/**
 * A non-2xx reply from an OpenAI-protocol node. Statuses in the failover set mean the
 * node (or our credentials for it) failed: try another node. Anything else is the
 * client's fault and goes back with its original status and body (spec 7.3).
 */
export function toError(
  status: number,
  body: Buffer,
  contentType: string | undefined,
  context: CallContext,
): GatewayError {
  const retryable = context.retryOnStatus.has(status) || status >= 500;
  return gatewayError('bad_gateway', {
    retryable,
    params: { reason: `node ${context.node.id} answered ${status}` },
    upstream: { nodeId: context.node.id, status, body, contentType, passThrough: !retryable },
  });
}
