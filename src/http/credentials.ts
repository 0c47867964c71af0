import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '../context/request-context.js';
import { clientIp } from '../limits/client-ip.js';
import type { Credentials } from '../pipeline/admit.js';

/** What the pipeline's admission reads of an HTTP request: its `Authorization` header and the client's address. */
export function credentialsOf(request: IncomingMessage, context: RequestContext): Credentials {
  return { authorization: request.headers.authorization, clientIp: clientIp(request, context.snapshot.trustedProxies) };
}

/**
 * The credentials of a request on the Anthropic routes (PRODUCT.md decision 16): the key in
 * `x-api-key` when present (the SDK's `apiKey`, Claude Code's `ANTHROPIC_API_KEY`), else
 * `Authorization: Bearer` (`authToken`, `ANTHROPIC_AUTH_TOKEN`).
 */
export function anthropicCredentialsOf(request: IncomingMessage, context: RequestContext): Credentials {
  const header = request.headers['x-api-key'];
  const apiKey = Array.isArray(header) ? header[0] : header;
  if (apiKey === undefined || apiKey === '') return credentialsOf(request, context);
  return { authorization: `Bearer ${apiKey}`, clientIp: clientIp(request, context.snapshot.trustedProxies) };
}
