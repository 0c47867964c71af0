import type { GatewayError } from '../../errors/gateway-error.js';
import { classifyNodeError } from '../classify-node-error.js';
import type { CallContext } from '../types.js';

/**
 * A non-2xx Gemini reply (provider-protocols 5.6, 6.6): 429 RESOURCE_EXHAUSTED, 500
 * INTERNAL, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED fail over, as does 403 (our key);
 * 400 INVALID_ARGUMENT, 404 NOT_FOUND… are the client's and go back with Google's own
 * status and body.
 */
export function toError(
  status: number,
  body: Buffer,
  contentType: string | undefined,
  context: CallContext,
): GatewayError {
  return classifyNodeError(status, body, contentType, context);
}
