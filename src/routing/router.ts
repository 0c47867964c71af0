import type { ModelConfig, NodeConfig } from '../config/gateway-config.js';
import type { NodeClient } from '../upstream/node-client.js';

/** A node that may serve a request, with the model's name there. */
export interface NodeCandidate {
  readonly node: NodeConfig;
  readonly client: NodeClient;
  readonly upstreamModel: string;
}

/**
 * Picks the nodes to try for a model, best first. The executor walks the list and fails
 * over down it; an empty list means no node is available (503 router_unavailable).
 */
export interface Router {
  candidates(model: ModelConfig): readonly NodeCandidate[];
}

/** Routes in configuration order; the node-pool router (weights, load, health) replaces it. */
export class ConfiguredOrderRouter implements Router {
  private readonly byModel = new Map<string, readonly NodeCandidate[]>();

  constructor(models: readonly ModelConfig[], clients: ReadonlyMap<string, NodeClient>) {
    for (const model of models) {
      const candidates = model.routes.flatMap((route) => {
        const client = clients.get(route.nodeId);
        return client ? [{ node: client.node, client, upstreamModel: route.upstreamModel }] : [];
      });
      this.byModel.set(model.id, candidates);
    }
  }

  candidates(model: ModelConfig): readonly NodeCandidate[] {
    return this.byModel.get(model.id) ?? [];
  }
}
