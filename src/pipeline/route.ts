import type { ModelConfig } from '../config/gateway-config.js';
import type { GatewayServices } from '../gateway-services.js';
import type { NodeCandidate } from '../routing/router.js';

/** The nodes that serve the model, in the order to try them (priority tiers, weights, health). */
export function route(services: GatewayServices, model: ModelConfig): readonly NodeCandidate[] {
  return services.router.candidates(model);
}
