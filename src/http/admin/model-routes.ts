import { CORE_EFFORTS, REASONING_EFFORTS } from '../../config/reasoning-efforts.js';
import type { ModelConfig } from '../../config/gateway-config.js';
import type { RouteView } from '../../routing/route-table.js';
import type { AdminHandler } from './node-routes.js';
import { sendJson } from '../../reply/send-json.js';

/** What an operator sees of a model: its limits, prices (USD per million tokens), reasoning settings and routes now. */
function modelView(routeView: RouteView, model: ModelConfig) {
  const { pricing, reasoning } = model;
  return {
    id: model.id,
    object: 'model',
    context_length: model.contextLength ?? null,
    max_output_tokens: model.maxOutputTokens ?? null,
    default_max_tokens: model.defaultMaxTokens ?? null,
    pricing:
      pricing === undefined
        ? null
        : {
            input: pricing.input,
            output: pricing.output,
            cached_input: pricing.cachedInput ?? null,
            cache_write: pricing.cacheWrite ?? null,
            cache_write_1h: pricing.cacheWrite1h ?? null,
            reasoning: pricing.reasoning ?? null,
          },
    reasoning:
      reasoning === undefined
        ? null
        : {
            default_effort: reasoning.defaultEffort,
            efforts: REASONING_EFFORTS.filter((effort) => CORE_EFFORTS.has(effort) || reasoning.efforts?.has(effort)),
            style: reasoning.style,
          },
    routes: routeView.routes(model.id).map((route) => ({
      node: route.nodeId,
      upstream_model: route.upstreamModel,
      weight: route.weight,
      priority: route.priority,
    })),
  };
}

/** GET /admin/v1/models: every configured model with its prices, reasoning settings and routes (runtime nodes included), as the request's snapshot has them. */
export function modelRoutes(): Array<{ method: string; pattern: RegExp; handler: AdminHandler }> {
  return [
    {
      method: 'GET',
      pattern: /^\/admin\/v1\/models$/,
      handler: async (_request, response, context) => {
        sendJson(response, context, 200, {
          object: 'list',
          data: [...context.snapshot.models.values()].map((model) => modelView(context.snapshot.routes, model)),
        });
      },
    },
  ];
}
