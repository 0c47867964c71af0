import type { GatewayServices } from '../gateway-services.js';
import type { Logger } from '../observability/logger.js';
import { gatewayEnvelope } from '../front-doors/reasoning-envelope.js';
import type { BodyBudget } from './body-budget.js';
import { RESPONSES_ERROR_SHAPE } from './error-shape.js';
import { chatCompletionsRoute } from './routes/chat-completions.js';
import { healthzRoute, readyzRoute } from './routes/health.js';
import { countTokensRoute, MESSAGES_ERROR_SHAPE, messagesRoute } from './routes/messages.js';
import { metricsRoute } from './routes/metrics.js';
import { MODELS_ERROR_SHAPE, modelsRoute } from './routes/models.js';
import { responsesInputTokensRoute, responsesRoute } from './routes/responses.js';
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
  const routes = new Map<string, Route>([
    [
      '/v1/chat/completions',
      { method: 'POST', handler: chatCompletionsRoute(services, logger, bodies), frontDoor: 'chat' },
    ],
    [
      '/v1/responses',
      {
        method: 'POST',
        handler: responsesRoute(services, logger, bodies, envelope),
        frontDoor: 'responses',
        errors: RESPONSES_ERROR_SHAPE,
      },
    ],
    [
      '/v1/responses/input_tokens',
      {
        method: 'POST',
        handler: responsesInputTokensRoute(services, bodies, envelope),
        frontDoor: 'responses',
        errors: RESPONSES_ERROR_SHAPE,
      },
    ],
    [
      '/v1/messages',
      {
        method: 'POST',
        handler: messagesRoute(services, logger, bodies, envelope),
        frontDoor: 'messages',
        errors: MESSAGES_ERROR_SHAPE,
      },
    ],
    [
      '/v1/messages/count_tokens',
      {
        method: 'POST',
        handler: countTokensRoute(services, bodies, envelope),
        frontDoor: 'messages',
        errors: MESSAGES_ERROR_SHAPE,
      },
    ],
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
