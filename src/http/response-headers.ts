import type { RequestContext } from '../pipeline/request-context.js';

/** Headers every response carries (spec 7.1): the request and correlation ids. */
export function idHeaders(context: RequestContext): Record<string, string> {
  return { 'x-request-id': context.requestId, 'x-correlation-id': context.correlationId };
}
