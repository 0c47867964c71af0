import { wireCodeOf } from '../errors/codes.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../context/request-context.js';

/** The spec's error body (spec 7.1): `{"error": {message, type, code, param, request_id}}`. */
export function errorEnvelopeJson(error: GatewayError, context: RequestContext): string {
  return JSON.stringify({
    error: {
      message: error.localizedMessage(context.language),
      type: error.type,
      code: wireCodeOf(error.code),
      param: error.param,
      request_id: context.requestId,
    },
  });
}
