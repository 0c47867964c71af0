import type { GatewayServices } from '../gateway-services.js';
import type { Logger } from '../observability/logger.js';
import type { FrontDoor } from '../front-doors/front-door.js';
import { chatDoor } from '../front-doors/chat/chat-door.js';
import { messagesDoor } from '../front-doors/messages/messages-door.js';
import { responsesDoor } from '../front-doors/responses/responses-door.js';
import { gatewayEnvelope } from '../front-doors/reasoning-envelope.js';
import type { BodyBudget } from './body-budget.js';
import { countTokensRoute, doorRoute } from './routes/door-route.js';
import { healthzRoute, readyzRoute } from './routes/health.js';
import { metricsRoute } from './routes/metrics.js';
import { MODELS_ERROR_SHAPE, modelsRoute } from './routes/models.js';
import type { Route } from './server.js';

/** The routes by exact path: the front doors, the model list, health and (on the main listener) metrics. */
export function gatewayRoutes(
  services: GatewayServices,
  logger: Logger,
  bodies: BodyBudget,
  shuttingDown: () => boolean,
): Map<string, Route> {
  // Reasoning artifacts of every front door are sealed with one secret (PRODUCT.md decision 17).
  const envelope = gatewayEnvelope(() => services.snapshot.config.adminKey);
  // One line per front door (and one per count-tokens route): the door's folder holds the rest.
  const door = (frontDoor: FrontDoor): Route => doorRoute(services, logger, bodies, frontDoor);
  const counting = (frontDoor: FrontDoor): Route => countTokensRoute(services, bodies, frontDoor);
  const messages = messagesDoor(envelope);
  const responses = responsesDoor(envelope);
  const routes = new Map<string, Route>([
    ['/v1/chat/completions', door(chatDoor())],
    ['/v1/responses', door(responses)],
    ['/v1/responses/input_tokens', counting(responses)],
    ['/v1/messages', door(messages)],
    ['/v1/messages/count_tokens', counting(messages)],
    ['/v1/models', { method: 'GET', handler: modelsRoute(services), errors: MODELS_ERROR_SHAPE }],
    ['/healthz', { method: 'GET', handler: healthzRoute() }],
    ['/readyz', { method: 'GET', handler: readyzRoute(services, shuttingDown) }],
  ]);
  // With a separate metrics address, /metrics lives only there (see ops-server.ts).
  const { metrics } = services.snapshot.config;
  if (metrics.enabled && metrics.listen === undefined) {
    routes.set('/metrics', { method: 'GET', handler: metricsRoute(services, { requireAdminKey: true }) });
  }
  return routes;
}
