import type { RequestContext } from '../pipeline/request-context.js';

/**
 * Headers every response carries: the request and correlation ids (spec 7.1) and, once
 * a node was tried, how many node attempts the request took.
 */
export function responseHeaders(context: RequestContext): Record<string, string> {
  const attempts = context.record.attempts.length;
  return attempts === 0
    ? { 'x-request-id': context.requestId, 'x-correlation-id': context.correlationId }
    : { 'x-request-id': context.requestId, 'x-correlation-id': context.correlationId, 'x-switchyard-attempts': String(attempts) };
}
