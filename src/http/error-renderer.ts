import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../pipeline/request-context.js';
import { errorEnvelopeJson } from './error-envelope.js';
import { responseHeaders } from './response-headers.js';

/**
 * The only place a thrown error becomes an HTTP response. A node's client-side error is
 * sent as the node sent it (status and body, spec 7.3); everything else in the spec's
 * envelope. Both carry the request ids.
 */
export function renderError(response: ServerResponse, error: GatewayError, context: RequestContext): void {
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
  // The rest of the body was not read (413, 408) or the gateway is stopping: do not reuse the connection.
  if (error.status === 413 || error.status === 408 || error.code === 'shutting_down') headers.connection = 'close';
  response.writeHead(error.status, headers);
  response.end(body);
}
