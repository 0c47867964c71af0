import { gatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { CallContext } from './types.js';
import { withoutNodeSecret } from './redact-node-secret.js';

/**
 * A non-2xx node reply, for any protocol. Statuses in the failover set (408, 429, 5xx,
 * Anthropic's 529, and 401/403 because the node's credentials are the operator's problem)
 * mean "try another node". Anything else is the client's fault and goes back with the
 * node's original status and body (spec 7.3).
 */
export function classifyNodeError(
  status: number,
  body: Buffer,
  contentType: string | undefined,
  context: CallContext,
  upstreamRequestId?: string,
): GatewayError {
  const retryable = context.retryOnStatus.has(status) || status >= 500;
  return gatewayError('bad_gateway', {
    retryable,
    params: { reason: `node ${context.node.id} answered ${status}` },
    upstream: {
      nodeId: context.node.id,
      protocol: context.node.protocol,
      status,
      body,
      contentType,
      passThrough: !retryable,
      upstreamRequestId,
    },
  });
}

/** An error event inside a node's stream (Anthropic `event: error`, a Gemini error object): the gateway's error event. */
export function inStreamNodeError(context: CallContext, detail: string): GatewayError {
  return gatewayError('bad_gateway', {
    params: { reason: `node ${context.node.id}: ${withoutNodeSecret(detail, context.node).replace(/\.$/, '')}` },
    upstream: { nodeId: context.node.id },
  });
}
