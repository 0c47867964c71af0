import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../context/request-context.js';
import { gatewayError } from '../errors/gateway-error.js';
import type { GatewayServices } from '../gateway-services.js';
import type { adminRoute } from './admin/admin-route.js';
import type { consoleRoute } from './console/console-route.js';
import { OPS_PATHS } from './request-area.js';
import { MODEL_PATH_PREFIX, modelRoute } from './routes/models.js';
import { STORED_RESPONSE_PATH_PREFIX, storedResponsesRoute } from './routes/stored-responses.js';
import type { Route } from './server.js';

/** Runs a request's route: its promise; throws at once for a request no route takes. */
export type DispatchRequest = (
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
  path: string,
  route: Route | undefined,
) => Promise<void>;

/**
 * The dispatch of a request to its route: the exact path's (`route`, from the table), else
 * the paths with an id in them (a model, a stored response) and the admin API and console,
 * loaded by their first request. While shutting down, only health and metrics are served.
 */
export function dispatchRequest(services: GatewayServices, shuttingDown: () => boolean): DispatchRequest {
  // The admin API (and its validators) is loaded by the first /admin/v1 request.
  let admin: Promise<ReturnType<typeof adminRoute>> | undefined;
  // The console (PRODUCT decision 24), loaded the same way by its first request; on only with the admin API.
  let operatorConsole: Promise<ReturnType<typeof consoleRoute>> | undefined;
  const oneModel = modelRoute(services);
  const storedResponse = storedResponsesRoute(services);
  return function dispatch(request, response, context, path, route) {
    if (shuttingDown() && !OPS_PATHS.has(path)) throw gatewayError('shutting_down', { retryAfter: 1 });
    if (route !== undefined) {
      if (route.method !== request.method) {
        throw gatewayError('method_not_allowed', {
          params: { method: request.method, path, allow: route.method },
          headers: { allow: route.method },
        });
      }
      return route.handler(request, response, context);
    }
    if (path.startsWith('/admin/v1/')) {
      admin ??= import('./admin/admin-route.js').then(
        (module) => module.adminRoute(services),
        (error: unknown) => {
          admin = undefined; // tried again by the next admin request
          throw error;
        },
      );
      return admin.then((handle) => handle(request, response, context, path));
    }
    if ((path === '/console' || path.startsWith('/console/')) && context.snapshot.config.adminKey !== undefined) {
      operatorConsole ??= import('./console/console-route.js').then(
        (module) => module.consoleRoute(services),
        (error: unknown) => {
          operatorConsole = undefined;
          throw error;
        },
      );
      return operatorConsole.then((handle) => handle(request, response, context, path));
    }
    // GET /v1/models/{id}: the id may itself hold slashes, so the rest of the path is the id.
    if (path.startsWith(MODEL_PATH_PREFIX) && path.length > MODEL_PATH_PREFIX.length) {
      if (request.method !== 'GET') {
        throw gatewayError('method_not_allowed', {
          params: { method: request.method, path, allow: 'GET' },
          headers: { allow: 'GET' },
        });
      }
      return oneModel(request, response, context, path);
    }
    // /v1/responses/{id} and /v1/responses/{id}/input_items (POST /v1/responses/… exact paths are in the table).
    if (path.startsWith(STORED_RESPONSE_PATH_PREFIX)) return storedResponse(request, response, context, path);
    throw gatewayError('no_route', { params: { method: request.method, path } });
  };
}
