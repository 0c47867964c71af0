import type { GatewayServices } from '../gateway-services.js';
import type { ReadinessCheck } from './readiness-checks.js';

/**
 * Readiness: at least one configured model has a route to a node that can take requests
 * (not ejected, drained or removed). Reads the router's state only; never calls a node.
 * A node that is merely full still counts: load is not a reason to leave the pool.
 */
export function modelsRoutableCheck(services: Pick<GatewayServices, 'snapshot' | 'nodes'>): ReadinessCheck {
  return {
    name: 'models_routable',
    async check() {
      const now = Date.now();
      const { models, routes } = services.snapshot;
      for (const model of models.values()) {
        for (const route of routes.routes(model.id)) {
          const state = services.nodes.get(route.nodeId);
          if (state === undefined || state.retired) continue;
          const condition = state.condition(now);
          if (condition === 'healthy' || condition === 'probing') return true;
        }
      }
      throw new Error('no configured model has a node that can take requests');
    },
  };
}
