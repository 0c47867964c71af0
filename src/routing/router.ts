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
  /**
   * The candidates for a request with an affinity key (a session, or a conversation's
   * opening: PRODUCT decision 26), and the node the key prefers: rendezvous hashing over
   * the nodes of the best available priority tier, so every instance prefers the same node
   * without talking. The preferred node comes first unless it is unavailable (ejected,
   * drained, full) or above `loadFactor` × its tier's average load; then the next node in
   * the key's hash order does. The rest follow in hash order, for failover.
   */
  affinityCandidates(model: ModelConfig, key: number, loadFactor: number): AffinityCandidates;
}

/** Candidates in order, and the node the affinity key prefers (undefined when no node serves the model). */
export interface AffinityCandidates {
  readonly candidates: NodeCandidate[];
  readonly preferred: string | undefined;
}
