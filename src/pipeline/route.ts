import type { ModelConfig } from '../config/gateway-config.js';
import type { GatewayServices } from '../gateway-services.js';
import type { NodeCandidate } from '../routing/router.js';

/**
 * The nodes that serve the model, in the order to try them (priority tiers, weights,
 * health). A request with affinity to a node (it carries back an artifact that node made,
 * PRODUCT.md decision 17) tries that node first while it is available; the others follow
 * in their order, for failover.
 */
export function route(
  services: GatewayServices,
  model: ModelConfig,
  affinityNode: string | undefined,
): readonly NodeCandidate[] {
  const candidates = services.router.candidates(model);
  if (affinityNode === undefined) return candidates;
  const index = candidates.findIndex((candidate) => candidate.node.id === affinityNode);
  if (index <= 0 || !(candidates[index] as NodeCandidate).state.isAvailable()) return candidates;
  return [candidates[index] as NodeCandidate, ...candidates.slice(0, index), ...candidates.slice(index + 1)];
}
