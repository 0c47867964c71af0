import type { IncomingMessage, ServerResponse } from 'node:http';
import { gatewayError } from '../../errors/gateway-error.js';
import type { GatewayServices } from '../../gateway-services.js';
import type { RequestContext } from '../../pipeline/request-context.js';
import { authenticateAdmin } from './authenticate-admin.js';
import { nodeRoutes } from './node-routes.js';

/** Everything under /admin/v1: admin key first, then a small pattern table. */
export function adminRoute(services: GatewayServices) {
  const routes = nodeRoutes(services);
  return async function handleAdmin(request: IncomingMessage, response: ServerResponse, context: RequestContext, path: string): Promise<void> {
    authenticateAdmin(request.headers.authorization, services.config.adminKey);
    const matching = routes.filter((route) => route.pattern.test(path));
    const route = matching.find((candidate) => candidate.method === request.method);
    if (route === undefined) {
      if (matching.length === 0) throw gatewayError('model_unavailable', { params: { method: request.method, path } });
      const allow = matching.map((candidate) => candidate.method).join(', ');
      throw gatewayError('method_not_allowed', { params: { method: request.method, path, allow }, headers: { allow } });
    }
    const id = decodeURIComponent(route.pattern.exec(path)?.[1] ?? '');
    await route.handler(request, response, context, id);
  };
}
