import { MODEL_PATH_PREFIX } from './routes/models.js';
import { STORED_RESPONSE_PATH_PREFIX } from './routes/stored-responses.js';
import type { Route } from './server.js';

/**
 * Which series a finished request is counted in: a client's (`switchyard_requests_total`,
 * by front door), the admin API's or the console's (`switchyard_admin_requests_total`), or
 * none (health probes and scrapes). Operators' calls never count as client traffic
 * (PRODUCT decision 30).
 */
export type RequestArea = 'client' | 'admin' | 'console' | 'ops';

/** The `front_door` label of a client path no front door owns (also used for unparsable HTTP). */
export const UNKNOWN_DOOR = 'unknown';
/** The `front_door` label of `GET /v1/models` and `GET /v1/models/{id}`. */
export const MODELS_DOOR = 'models';

/** Probe and scrape paths: logged at debug, in no request metric, served while shutting down. */
export const OPS_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export function requestAreaOf(path: string): RequestArea {
  if (OPS_PATHS.has(path)) return 'ops';
  if (path === '/admin/v1' || path.startsWith('/admin/v1/')) return 'admin';
  if (path === '/console' || path.startsWith('/console/')) return 'console';
  return 'client';
}

/**
 * The `front_door` label of a client request: its route's door; the Responses door for
 * stored responses; `models` for the model list; `unknown` for a path no route takes
 * (answered 404 `model_unavailable`). A bounded set, whatever path the client sends.
 */
export function doorLabelOf(path: string, route: Route | undefined): string {
  if (route !== undefined) return route.frontDoor ?? (path === '/v1/models' ? MODELS_DOOR : UNKNOWN_DOOR);
  if (path.startsWith(STORED_RESPONSE_PATH_PREFIX)) return 'responses';
  if (path.startsWith(MODEL_PATH_PREFIX) && path.length > MODEL_PATH_PREFIX.length) return MODELS_DOOR;
  return UNKNOWN_DOOR;
}
