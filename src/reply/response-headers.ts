import type { RequestContext } from '../context/request-context.js';

/**
 * Headers every response carries: the request and correlation ids (spec 7.1), once a node
 * was tried how many node attempts the request took, and once the request was counted
 * against its rate limits the X-RateLimit-* headers.
 */
export function responseHeaders(context: RequestContext): Record<string, string> {
  const headers: Record<string, string> = {};
  addResponseHeaders(context, headers);
  return headers;
}

/** `headers` (a response's own) with those of `responseHeaders` added: one object per response. */
export function withResponseHeaders(
  context: RequestContext,
  headers: Record<string, string | number>,
): Record<string, string | number> {
  addResponseHeaders(context, headers);
  return headers;
}

function addResponseHeaders(context: RequestContext, headers: Record<string, string | number>): void {
  headers['x-request-id'] = context.requestId;
  headers['x-correlation-id'] = context.correlationId;
  // The Anthropic SDK reads the id from `request-id` (inbound-protocols 1.9).
  if (context.record.frontDoor === 'messages') headers['request-id'] = context.requestId;
  const attempts = context.record.attempts.length;
  if (attempts !== 0) headers['x-switchyard-attempts'] = String(attempts);
  const limits = context.rateLimitHeaders;
  if (limits !== undefined)
    for (const name in limits) {
      const value = limits[name];
      if (value !== undefined) headers[name] = value;
    }
}
