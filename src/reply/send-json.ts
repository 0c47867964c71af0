import { captureReply } from './reply-capture.js';
import type { ServerResponse } from 'node:http';
import type { RequestContext } from '../context/request-context.js';
import { withResponseHeaders } from './response-headers.js';

/** Sends JSON text with the headers every response carries (request ids, rate limits). */
export function sendJsonText(response: ServerResponse, context: RequestContext, status: number, body: string): void {
  context.record.status = status;
  response.writeHead(
    status,
    withResponseHeaders(context, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
  );
  captureReply(context, body);
  response.end(body);
}

/** Sends a value as JSON, with the headers every response carries. */
export function sendJson(response: ServerResponse, context: RequestContext, status: number, value: unknown): void {
  sendJsonText(response, context, status, JSON.stringify(value));
}
