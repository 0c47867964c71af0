import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_OPERATIONS, pickRoute } from '../../admin/admin-operations.js';
import { AdminService } from '../../admin/admin-service.js';
import type { GatewayServices } from '../../gateway-services.js';
import type { RequestContext } from '../../context/request-context.js';
import { clientIp } from '../../limits/client-ip.js';
import { authenticateLimited } from '../../pipeline/auth-failures.js';
import { authenticateAdmin } from './authenticate-admin.js';
import { modelRoutes } from './model-routes.js';
import { nodeRoutes, type AdminHandler } from './node-routes.js';
import { readJsonObject } from './read-json-body.js';
import { sendJson } from '../../reply/send-json.js';

const ADMIN_BODY_LIMIT = 64 * 1024;

/** A request the admin API serves, once its caller is known to be the operator. */
export type AdminRequestHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
  path: string,
) => Promise<void>;

/** Everything under /admin/v1: admin key first (wrong ones limited per client address), then the operations. */
export function adminRoute(services: GatewayServices): AdminRequestHandler {
  const operations = adminOperationsHandler(services);
  return async function handleAdmin(request, response, context, path) {
    const { snapshot } = context;
    await authenticateLimited(snapshot.limiter, clientIp(request, snapshot.trustedProxies), () =>
      authenticateAdmin(request.headers.authorization, snapshot.config.adminKey),
    );
    await operations(request, response, context, path);
  };
}

/**
 * The admin API's operations as a small pattern table (nodes, models; keys, accounts,
 * usage, stats), for a caller already authenticated: by the admin key (adminRoute) or by a
 * console session (the console's API calls).
 */
export function adminOperationsHandler(services: GatewayServices): AdminRequestHandler {
  const admin = new AdminService(services.store, services.accounts, services.usage, services.requestRecords, {
    clock: services.billing.clock,
  });
  const operations: Array<{ method: string; pattern: RegExp; handler: AdminHandler }> = ADMIN_OPERATIONS.map(
    (operation) => ({
      method: operation.method,
      pattern: operation.pattern,
      handler: async (request, response, context, id) => {
        const body =
          operation.method === 'POST' || operation.method === 'PATCH'
            ? await readJsonObject(request, ADMIN_BODY_LIMIT, context.snapshot.config.http.maxJsonDepth)
            : undefined;
        const query = new URL(request.url ?? '/', 'http://switchyard.invalid').searchParams;
        sendJson(response, context, operation.status, await operation.run(admin, { id, query, body }));
      },
    }),
  );
  const routes = [...nodeRoutes(services), ...modelRoutes(), ...operations];
  return async function handleOperation(request, response, context, path) {
    const { route, id } = pickRoute(routes, request.method, path);
    await route.handler(request, response, context, id);
  };
}
