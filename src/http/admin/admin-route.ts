import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_OPERATIONS, pickRoute } from '../../admin/admin-operations.js';
import { AdminService } from '../../admin/admin-service.js';
import type { GatewayServices } from '../../gateway-services.js';
import type { RequestContext } from '../../context/request-context.js';
import { authenticateAdmin } from './authenticate-admin.js';
import { nodeRoutes, type AdminHandler } from './node-routes.js';
import { readJsonObject } from './read-json-body.js';
import { sendJson } from './send-json.js';

const ADMIN_BODY_LIMIT = 64 * 1024;

/** Everything under /admin/v1: admin key first, then a small pattern table (nodes; keys, accounts, usage). */
export function adminRoute(services: GatewayServices) {
  const admin = new AdminService(services.store, services.accounts, services.usage);
  const operations: Array<{ method: string; pattern: RegExp; handler: AdminHandler }> = ADMIN_OPERATIONS.map(
    (operation) => ({
      method: operation.method,
      pattern: operation.pattern,
      handler: async (request, response, context, id) => {
        const body =
          operation.method === 'POST' || operation.method === 'PATCH'
            ? await readJsonObject(request, ADMIN_BODY_LIMIT, services.config.http.maxJsonDepth)
            : undefined;
        const query = new URL(request.url ?? '/', 'http://switchyard.invalid').searchParams;
        sendJson(response, context, operation.status, await operation.run(admin, { id, query, body }));
      },
    }),
  );
  const routes = [...nodeRoutes(services), ...operations];
  return async function handleAdmin(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
    path: string,
  ): Promise<void> {
    authenticateAdmin(request.headers.authorization, services.config.adminKey);
    const { route, id } = pickRoute(routes, request.method, path);
    await route.handler(request, response, context, id);
  };
}
