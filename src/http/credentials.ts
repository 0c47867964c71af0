import type { IncomingMessage } from 'node:http';
import type { GatewayServices } from '../gateway-services.js';
import { clientIp } from '../limits/client-ip.js';
import type { Credentials } from '../pipeline/admit.js';

/** What the pipeline's admission reads of an HTTP request: its `Authorization` header and the client's address. */
export function credentialsOf(request: IncomingMessage, services: GatewayServices): Credentials {
  return { authorization: request.headers.authorization, clientIp: clientIp(request, services.trustedProxies) };
}
