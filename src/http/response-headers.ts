import type { RequestContext } from '../pipeline/request-context.js';

/**
 * Headers every response carries: the request and correlation ids (spec 7.1), once a node
 * was tried how many node attempts the request took, and once the request was counted
 * against its rate limits the X-RateLimit-* headers.
 */
export function responseHeaders(context: RequestContext): Record<string, string> {
  const attempts = context.record.attempts.length;
  const ids: Record<string, string> =
    attempts === 0
      ? { 'x-request-id': context.requestId, 'x-correlation-id': context.correlationId }
      : { 'x-request-id': context.requestId, 'x-correlation-id': context.correlationId, 'x-switchyard-attempts': String(attempts) };
  return context.rateLimitHeaders === undefined ? ids : { ...ids, ...context.rateLimitHeaders };
}
