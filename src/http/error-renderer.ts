import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../context/request-context.js';
import { canDrain, endAfterDrain, type DrainLimits } from './end-after-drain.js';
import { errorEnvelopeJson } from './error-envelope.js';
import { responseHeaders } from './response-headers.js';

/**
 * The only place a thrown error becomes an HTTP response. A node's client-side error is
 * sent as the node sent it (status and body, spec 7.3); everything else in the spec's
 * envelope. Both carry the request ids. An error answered before the request body was
 * read in full is ended after draining the rest within `drain` (see `endAfterDrain`), or
 * closes the connection when it cannot be drained.
 */
export function renderError(
  response: ServerResponse,
  error: GatewayError,
  context: RequestContext,
  drain?: DrainLimits,
): void {
  context.record.status = error.upstream?.passThrough ? error.upstream.status : error.status;
  context.record.errorCode = error.upstream?.passThrough ? `upstream_${error.upstream.status}` : error.code;
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const upstream = error.upstream;
  if (upstream?.passThrough && upstream.status !== undefined && upstream.body !== undefined) {
    response.writeHead(upstream.status, {
      ...responseHeaders(context),
      'content-type': upstream.contentType ?? 'application/json',
      'content-length': upstream.body.length,
    });
    response.end(upstream.body);
    return;
  }
  const body = errorEnvelopeJson(error, context);
  const headers: Record<string, string | number> = {
    ...error.headers,
    ...responseHeaders(context),
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  const request = response.req;
  // A silent client (408) is not drained; a stopping gateway does not wait for bodies.
  const drained =
    drain !== undefined && error.status !== 408 && error.code !== 'shutting_down' && canDrain(request, drain);
  // The rest of the body will not be read, or the gateway is stopping: do not reuse the connection.
  if (!drained && (!request.complete || error.code === 'shutting_down')) headers.connection = 'close';
  response.writeHead(error.status, headers);
  if (drained) endAfterDrain(request, response, body, drain);
  else response.end(body);
}
