import type { NodeConfig } from '../config/gateway-config.js';
import type { NodeStatePatch } from '../store/cluster-store.js';
import type { NodeClient } from '../upstream/node-client.js';
import type { HealthSettings } from '../config/node-health-settings.js';
import { STANDALONE, type NodeStateLinks } from './node-state-links.js';
import { hashText } from './affinity-hash.js';
import type { NodeLoadReport } from './parse-node-load.js';

/** What an operator sees of a node (GET /admin/v1/nodes). */
export type NodeCondition = 'healthy' | 'ejected' | 'probing' | 'drained';

const LATENCY_SMOOTHING = 0.2;
/** A node's KV cache this full (0..1) doubles its load for the router. */
const KV_CACHE_NEARLY_FULL = 0.9;
/** A node's load report counts for this many read intervals, then is stale. */
const REPORT_FRESH_INTERVALS = 3;
const OUTCOME_WINDOW = 50;

/**
 * Live state of one node: capacity in use, health, drain, recent latency and errors.
 * Concurrency is counted here, so `max_concurrency` (this instance's share of it when
 * several instances share the store) holds whatever the router decides: `tryAcquire`
 * refuses a slot on a full node. Drains, ejections and recoveries made here are told to
 * the other instances through `links`; theirs arrive through `applyShared`.
 */
export class NodeState {
  inFlight = 0;
  drained = false;
  /** Exponentially smoothed time to first byte of successful attempts, ms. */
  latencyMs: number | undefined = undefined;
  private consecutiveFailures = 0;
  private ejections = 0;
  private ejectedUntil = 0;
  /** A half-open node lets one request through to see whether it recovered. */
  private probeInFlight = false;
  private readonly outcomes: boolean[] = [];
  private outcomeIndex = 0;
  /** Removed from the configuration: takes no new requests, closes once idle. */
  retired = false;
  /**
   * The state this one replaced on a reload, while it still has requests in flight: they
   * count against this node's `max_concurrency` until they finish.
   */
  predecessor: NodeState | undefined = undefined;
  /** The node's own report of its load (`load_metrics`), when read. */
  private reported: (NodeLoadReport & { readonly at: number; readonly freshForMs: number }) | undefined;
  /** The node id's hash, for rendezvous hashing (affinity): every instance computes the same. */
  readonly idHash: number;

  constructor(
    readonly node: NodeConfig,
    readonly client: NodeClient,
    /** Replaced when the configuration is reloaded. */
    public health: HealthSettings,
    private readonly links: NodeStateLinks = STANDALONE,
  ) {
    this.idHash = hashText(node.id);
  }

  get id(): string {
    return this.node.id;
  }

  condition(now = Date.now()): NodeCondition {
    if (this.drained) return 'drained';
    if (this.ejectedUntil === 0) return 'healthy';
    return now < this.ejectedUntil ? 'ejected' : 'probing';
  }

  /** Requests in flight on this node, including those of a state it replaced. */
  get load(): number {
    if (this.predecessor !== undefined && this.predecessor.inFlight === 0) this.predecessor = undefined;
    return this.inFlight + (this.predecessor?.inFlight ?? 0);
  }

  /**
   * The load the router weighs: this instance's requests in flight, or what the node itself
   * reports running and waiting (every instance's and other clients' requests) when that is
   * more, doubled while the node reports its KV cache at least 90 % full (new requests
   * there would evict cached prefixes or queue). A report counts while fresh: read within
   * the last three intervals.
   */
  routingLoad(now = Date.now()): number {
    const own = this.load;
    const reported = this.reported;
    if (reported === undefined || now - reported.at > reported.freshForMs) return own;
    const load = Math.max(own, reported.running + reported.waiting);
    return reported.kvCacheUsage !== undefined && reported.kvCacheUsage >= KV_CACHE_NEARLY_FULL ? load * 2 : load;
  }

  /** A read of the node's own metrics (`load_metrics`), or undefined when a read failed. */
  setReported(load: NodeLoadReport | undefined, intervalMs: number, now = Date.now()): void {
    this.reported = load && { ...load, at: now, freshForMs: intervalMs * REPORT_FRESH_INTERVALS };
  }

  /** What the node last reported of its load while fresh (admin listing, metrics). */
  reportedLoad(now = Date.now()): NodeLoadReport | undefined {
    const reported = this.reported;
    return reported === undefined || now - reported.at > reported.freshForMs ? undefined : reported;
  }

  /** The most requests this instance sends to the node at once: `max_concurrency`, or its share of it. */
  get effectiveMaxConcurrency(): number {
    return this.links.concurrencyShare(this.node.maxConcurrency);
  }

  /** Whether the router may offer this node for a new request now. */
  isAvailable(now = Date.now()): boolean {
    if (this.drained || this.retired || this.load >= this.effectiveMaxConcurrency) return false;
    const condition = this.condition(now);
    return condition === 'healthy' || (condition === 'probing' && !this.probeInFlight);
  }

  /**
   * Takes a concurrency slot if the node can take one more request: `probe` when this
   * request is the one a half-open node lets through, `slot` otherwise, false when full.
   */
  tryAcquire(now = Date.now()): 'slot' | 'probe' | false {
    if (!this.isAvailable(now)) return false;
    this.inFlight++;
    if (this.condition(now) !== 'probing') return 'slot';
    this.probeInFlight = true;
    return 'probe';
  }

  /**
   * Gives the slot back. A probe that ended without a verdict (client gone, deadline)
   * lets the next request probe instead, so a half-open node is never stuck.
   */
  release(lease: 'slot' | 'probe'): void {
    this.inFlight--;
    if (lease === 'probe') this.probeInFlight = false;
  }

  /** The node answered well (2xx, or a client error that is not its fault). */
  recordSuccess(latencyMs: number | undefined): void {
    this.pushOutcome(true);
    this.consecutiveFailures = 0;
    this.probeInFlight = false;
    this.ejections = 0;
    const recovered = this.ejectedUntil !== 0;
    this.ejectedUntil = 0;
    if (latencyMs !== undefined) {
      this.latencyMs =
        this.latencyMs === undefined ? latencyMs : this.latencyMs + LATENCY_SMOOTHING * (latencyMs - this.latencyMs);
    }
    if (recovered) this.links.changed(this.id, { ejectedForMs: null });
  }

  /** The node failed (network error, time-out, a failover status). */
  recordFailure(now = Date.now()): void {
    this.pushOutcome(false);
    // Requests that were already in flight when the node was ejected: no second ejection.
    if (this.condition(now) === 'ejected') return;
    this.consecutiveFailures++;
    const wasProbing = this.probeInFlight;
    this.probeInFlight = false;
    if (wasProbing || this.consecutiveFailures >= this.health.failureThreshold) this.eject(now);
  }

  /** Takes the node out until its cooldown passes; each ejection in a row doubles it. */
  eject(now = Date.now()): void {
    const cooldown = Math.min(this.health.maxEjectionMs, this.health.baseEjectionMs * 2 ** this.ejections);
    this.ejections++;
    this.ejectedUntil = now + cooldown;
    this.consecutiveFailures = 0;
    this.links.changed(this.id, { ejectedForMs: cooldown });
  }

  /** An operator drained (no new requests) or enabled the node here: told to the other instances. */
  setDrained(drained: boolean): void {
    this.drained = drained;
    this.links.changed(this.id, { drained });
  }

  /**
   * A change another instance made (or the stored state, at start), applied without telling
   * anyone. An ejection ends at the later of this instance's end and the other's; it does
   * not touch this instance's failure count or cooldown doubling. A recovery ends the
   * ejection here too and restarts the doubling, as a success here would.
   */
  applyShared(patch: NodeStatePatch, now = Date.now()): void {
    if (patch.drained !== undefined) this.drained = patch.drained;
    if (patch.ejectedForMs === null) {
      this.ejectedUntil = 0;
      this.ejections = 0;
    } else if (patch.ejectedForMs !== undefined && patch.ejectedForMs > 0) {
      this.ejectedUntil = Math.max(this.ejectedUntil, now + patch.ejectedForMs);
    }
  }

  /** Failures among the last attempts, 0..1. */
  errorRate(): number {
    if (this.outcomes.length === 0) return 0;
    return this.outcomes.filter((ok) => !ok).length / this.outcomes.length;
  }

  /** Milliseconds until an ejected node may be tried again (0 when not ejected). */
  cooldownLeftMs(now = Date.now()): number {
    return Math.max(0, this.ejectedUntil - now);
  }

  private pushOutcome(ok: boolean): void {
    if (this.outcomes.length < OUTCOME_WINDOW) this.outcomes.push(ok);
    else this.outcomes[this.outcomeIndex] = ok;
    this.outcomeIndex = (this.outcomeIndex + 1) % OUTCOME_WINDOW;
  }
}
