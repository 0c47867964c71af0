import type { ModelConfig } from '../config/gateway-config.js';
import { DEFAULTS } from '../config/defaults.js';
import type { AffinityOutcome, AttemptRecord } from '../context/request-context.js';
import type { NodeCandidate, Router } from '../routing/router.js';
import { affinityKey } from './affinity-key.js';
import type { GatewayRequest } from './front-door.js';

/** The nodes to try in order, and the node the request's affinity key prefers (undefined: no affinity). */
export interface Routing {
  readonly candidates: readonly NodeCandidate[];
  readonly preferredNode: string | undefined;
}

/**
 * The nodes that serve the model, in the order to try them (priority tiers, weights,
 * health). A request with an affinity key (a session, or with `prefix` affinity the
 * conversation's opening: PRODUCT decision 26) goes to the node the key prefers by
 * rendezvous hashing, within the load bound. A request with affinity to a node (it
 * carries back an artifact that node made, PRODUCT.md decision 17) tries that node first
 * while it is available; the others follow in their order, for failover.
 */
export function route(router: Router, model: ModelConfig, request: GatewayRequest): Routing {
  const key = affinityKey(model, request.chat, request.sessionKey);
  let candidates: readonly NodeCandidate[];
  let preferredNode: string | undefined;
  if (key === undefined) candidates = router.candidates(model);
  else {
    const loadFactor = model.routing?.affinityLoadFactor ?? DEFAULTS.routing.affinityLoadFactor;
    const chosen = router.affinityCandidates(model, key, loadFactor);
    candidates = chosen.candidates;
    preferredNode = chosen.preferred;
  }
  const { affinityNode } = request;
  if (affinityNode === undefined) return { candidates, preferredNode };
  const index = candidates.findIndex((candidate) => candidate.node.id === affinityNode);
  const affine = candidates[index];
  if (index <= 0 || affine === undefined || !affine.state.isAvailable()) return { candidates, preferredNode };
  return {
    candidates: [affine, ...candidates.slice(0, index), ...candidates.slice(index + 1)],
    preferredNode,
  };
}

/**
 * Whether the node the affinity key prefers served the request: `hit` when the last node
 * tried is the preferred one, `spill` when another node took it (the preferred one was
 * skipped or failed over), `none` without an affinity key.
 */
export function affinityOutcome(
  preferredNode: string | undefined,
  attempts: readonly AttemptRecord[],
): AffinityOutcome {
  if (preferredNode === undefined) return 'none';
  return attempts.at(-1)?.node === preferredNode ? 'hit' : 'spill';
}
