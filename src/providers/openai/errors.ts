import type { GatewayError } from '../../errors/gateway-error.js';
import { classifyNodeError } from '../classify-node-error.js';
import type { CallContext } from '../types.js';

/** A non-2xx reply from an OpenAI-protocol node (see classifyNodeError). */
export function toError(
  status: number,
  body: Buffer,
  contentType: string | undefined,
  context: CallContext,
): GatewayError {
  return classifyNodeError(status, body, contentType, context);
}
