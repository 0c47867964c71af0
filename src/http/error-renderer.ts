import { captureReply } from '../reply/reply-capture.js';
import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../context/request-context.js';
import { canDrain, endAfterDrain, type DrainLimits } from './end-after-drain.js';
import { OPENAI_ERROR_SHAPE, type ErrorShape } from '../reply/error-shape.js';
import { responseHeaders } from '../reply/response-headers.js';

/**
 * The only place a thrown error becomes an HTTP response. A node's client-side error is
 * sent as the node sent it (status and body, spec 7.3) when the front door's shape lets it
 * through; everything else in the door's error shape (the spec's envelope on the OpenAI
 * doors), with the node's status. Both carry the request ids. An error answered before the request body was
 * read in full is ended after draining the rest within `drain` (see `endAfterDrain`), or
 * closes the connection when it cannot be drained.
 */
export function renderError(
  response: ServerResponse,
  error: GatewayError,
  context: RequestContext,
  drain?: DrainLimits,
  shape: ErrorShape = OPENAI_ERROR_SHAPE,
): void {
  const upstream = error.upstream;
  const nodeStatus = upstream?.passThrough === true ? upstream.status : undefined;
  const status = nodeStatus ?? error.status;
  context.record.status = status;
  context.record.errorCode = nodeStatus === undefined ? error.code : `upstream_${nodeStatus}`;
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (nodeStatus !== undefined && upstream?.body !== undefined && shape.passesThrough(upstream)) {
    response.writeHead(nodeStatus, {
      ...responseHeaders(context),
      'content-type': upstream.contentType ?? 'application/json',
      'content-length': upstream.body.length,
    });
    captureReply(context, upstream.body);
    response.end(upstream.body);
    return;
  }
  const body = shape.body(error, context);
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
  response.writeHead(status, headers);
  captureReply(context, body);
  if (drained) endAfterDrain(request, response, body, drain);
  else response.end(body);
}
