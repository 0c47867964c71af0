import type { ServerResponse } from 'node:http';
import type { RequestContext } from '../../context/request-context.js';
import { responseHeaders } from '../response-headers.js';

/** Sends a JSON body with the request ids. */
export function sendJson(response: ServerResponse, context: RequestContext, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  context.record.status = status;
  response.writeHead(status, {
    ...responseHeaders(context),
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
