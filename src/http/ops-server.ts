import { createServer, type Server } from 'node:http';
import { asGatewayError, gatewayError } from '../errors/gateway-error.js';
import type { GatewayServices } from '../gateway-services.js';
import { renderError } from './error-renderer.js';
import { healthzRoute, readyzRoute } from './routes/health.js';
import { metricsRoute } from './routes/metrics.js';
import { newRequestContext, pathOf, type RouteHandler } from './server.js';

/**
 * The separate metrics listener (`metrics.listen`): GET /metrics without auth, plus
 * /healthz and /readyz, meant for an address only the monitoring network reaches. Not
 * logged per request.
 */
export function createOpsServer(services: GatewayServices, shuttingDown: () => boolean): Server {
  const routes = new Map<string, RouteHandler>([
    ['/metrics', metricsRoute(services, { requireAdminKey: false })],
    ['/healthz', healthzRoute()],
    ['/readyz', readyzRoute(services, shuttingDown)],
  ]);
  return createServer((request, response) => {
    const context = newRequestContext(request, services.snapshot);
    const path = pathOf(request.url);
    const handler = routes.get(path);
    const handled =
      handler === undefined
        ? Promise.reject(gatewayError('no_route', { params: { method: request.method, path } }))
        : request.method !== 'GET'
          ? Promise.reject(
              gatewayError('method_not_allowed', {
                params: { method: request.method, path, allow: 'GET' },
                headers: { allow: 'GET' },
              }),
            )
          : handler(request, response, context);
    handled.catch((error: unknown) => renderError(response, asGatewayError(error), context));
  });
}
