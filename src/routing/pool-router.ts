import type { ModelConfig } from '../config/gateway-config.js';
import type { NodeRegistry } from './node-registry.js';
import type { RouteView } from './route-table.js';
import type { AffinityCandidates, NodeCandidate, Router } from './router.js';
import { rendezvousScore } from './affinity-hash.js';

interface WeightedCandidate extends NodeCandidate {
  readonly weight: number;
  readonly priority: number;
}

/** Share of a node's capacity in use: lower is better. */
function utilization(candidate: WeightedCandidate): number {
  return candidate.state.routingLoad() / candidate.state.effectiveMaxConcurrency;
}

/** A node of a model in an affinity key's hash order. */
interface RankedCandidate extends WeightedCandidate {
  readonly score: number;
  readonly available: boolean;
  readonly load: number;
}

const byScore = (a: RankedCandidate, b: RankedCandidate): number => b.score - a.score;

/**
 * The less used of two weighted draws; on a tie the first draw, so idle nodes get traffic
 * in proportion to weight (weights already decided the draws: comparing by weight again
 * would count them twice).
 */
function better(first: WeightedCandidate, second: WeightedCandidate): WeightedCandidate {
  return utilization(second) < utilization(first) ? second : first;
}

/** Order for the failover tail: least used first, then heavier weight, then faster. */
function tailOrder(a: WeightedCandidate, b: WeightedCandidate): number {
  return utilization(a) - utilization(b) || b.weight - a.weight || (a.state.latencyMs ?? 0) - (b.state.latencyMs ?? 0);
}

/**
 * Weighted, load-aware choice over a model's free, healthy nodes, tier by tier of route
 * priority. Within a tier the first candidate is the better of two drawn with probability
 * proportional to weight, whichever uses less of its capacity (power of two choices:
 * traffic follows the weights while nodes are idle and shifts to free capacity under
 * load); the rest of the tier follows, least used first. Full, drained, ejected and
 * retired nodes are left out.
 */
export class PoolRouter implements Router {
  constructor(
    private readonly routes: RouteView,
    private readonly nodes: NodeRegistry,
    private readonly random: () => number = Math.random,
  ) {}

  candidates(model: ModelConfig): NodeCandidate[] {
    const now = Date.now();
    const available: WeightedCandidate[] = [];
    for (const route of this.routes.routes(model.id)) {
      const state = this.nodes.get(route.nodeId);
      if (state === undefined || !state.isAvailable(now)) continue;
      available.push({
        node: state.node,
        client: state.client,
        state,
        upstreamModel: route.upstreamModel,
        weight: route.weight * state.node.weight,
        priority: route.priority,
      });
    }
    if (available.length <= 1) return available;
    const ordered: NodeCandidate[] = [];
    const tiers = [...new Set(available.map((candidate) => candidate.priority))].sort((a, b) => a - b);
    for (const tier of tiers)
      ordered.push(...this.orderTier(available.filter((candidate) => candidate.priority === tier)));
    return ordered;
  }

  affinityCandidates(model: ModelConfig, key: number, loadFactor: number): AffinityCandidates {
    const now = Date.now();
    const ranked: RankedCandidate[] = [];
    let bestTier = Infinity;
    const routes = this.routes.routes(model.id);
    for (const route of routes) {
      const state = this.nodes.get(route.nodeId);
      if (state === undefined || state.retired) continue;
      const available = state.isAvailable(now);
      const weight = route.weight * state.node.weight;
      if (available && route.priority < bestTier) bestTier = route.priority;
      ranked.push({
        node: state.node,
        client: state.client,
        state,
        upstreamModel: route.upstreamModel,
        weight,
        priority: route.priority,
        // One node: nothing to rank.
        score: routes.length === 1 ? 0 : rendezvousScore(key, state.idHash, weight),
        available,
        load: available ? state.routingLoad(now) : 0,
      });
    }
    if (bestTier === Infinity) return { candidates: [], preferred: undefined };
    if (ranked.length > 1) ranked.sort((a, b) => a.priority - b.priority || byScore(a, b));
    let preferred: RankedCandidate | undefined;
    // The tier's total load and weight, over the nodes that can take a request.
    let tierLoad = 0;
    let tierWeight = 0;
    for (const candidate of ranked) {
      if (candidate.priority !== bestTier) continue;
      preferred ??= candidate;
      if (!candidate.available) continue;
      tierLoad += candidate.load;
      tierWeight += candidate.weight;
    }
    // Consistent hashing with bounded loads: a node takes the request while its load with
    // this request is at most ⌈factor × (tier load + 1) × its share of the tier's weight⌉,
    // so an idle tier never spills and at least one node always fits.
    let chosen: RankedCandidate | undefined;
    for (const candidate of ranked) {
      if (candidate.priority !== bestTier || !candidate.available) continue;
      const bound = Math.ceil((loadFactor * (tierLoad + 1) * candidate.weight) / tierWeight);
      if (candidate.load + 1 <= bound) {
        chosen = candidate;
        break;
      }
    }
    const candidates: NodeCandidate[] = chosen === undefined ? [] : [chosen];
    for (const candidate of ranked) {
      if (candidate.available && candidate !== chosen && candidate.priority >= bestTier) candidates.push(candidate);
    }
    return { candidates, preferred: preferred?.node.id };
  }

  private orderTier(tier: WeightedCandidate[]): WeightedCandidate[] {
    if (tier.length === 1) return tier;
    const first = better(this.drawByWeight(tier), this.drawByWeight(tier));
    return [first, ...tier.filter((candidate) => candidate !== first).sort(tailOrder)];
  }

  private drawByWeight(candidates: readonly WeightedCandidate[]): WeightedCandidate {
    let total = 0;
    for (const candidate of candidates) total += candidate.weight;
    let point = this.random() * total;
    for (const candidate of candidates) {
      point -= candidate.weight;
      if (point < 0) return candidate;
    }
    return candidates[candidates.length - 1] as WeightedCandidate;
  }
}
