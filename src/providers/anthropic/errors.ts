import type { GatewayError } from '../../errors/gateway-error.js';
import { classifyNodeError } from '../classify-node-error.js';
import type { CallContext } from '../types.js';

/**
 * A non-2xx Anthropic reply (provider-protocols 4.6, 6.6): 429, 5xx and 529
 * `overloaded_error` fail over, as do 401/403 (our key); 400, 404, 413… are the client's
 * and go back with Anthropic's own status and body. The body's `request_id` is kept for logs.
 */
export function toError(
  status: number,
  body: Buffer,
  contentType: string | undefined,
  context: CallContext,
): GatewayError {
  const match = /"request_id"\s*:\s*"([^"]{1,200})"/.exec(body.subarray(0, 4096).toString('utf8'));
  return classifyNodeError(status, body, contentType, context, match?.[1]);
}
