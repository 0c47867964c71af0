import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '../context/request-context.js';
import { clientIp } from '../limits/client-ip.js';
import type { Credentials } from '../pipeline/admit.js';

/**
 * What the pipeline's admission reads of an HTTP request: the key as its door reads it (an
 * `Authorization` value; the header itself by default), and the client's address.
 */
export function credentialsOf(
  request: IncomingMessage,
  context: RequestContext,
  authorization: string | undefined = request.headers.authorization,
): Credentials {
  return { authorization, clientIp: clientIp(request, context.snapshot.trustedProxies) };
}
