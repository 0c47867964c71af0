import type { ModelConfig, NodeConfig } from '../config/gateway-config.js';
import type { NodeClient } from '../upstream/node-client.js';
import type { NodeState } from './node-state.js';

/** A node that may serve a request, with the model's name there. */
export interface NodeCandidate {
  readonly node: NodeConfig;
  readonly client: NodeClient;
  readonly state: NodeState;
  readonly upstreamModel: string;
}

/**
 * Picks the nodes to try for a model, best first. The executor walks the list, taking a
 * concurrency slot on each node it tries, and fails over down it; an empty list means no
 * node is available (503 router_unavailable).
 */
export interface Router {
  candidates(model: ModelConfig): NodeCandidate[];
}
