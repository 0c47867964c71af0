import { isDeepStrictEqual } from 'node:util';
import type { NodeConfig } from '../config/gateway-config.js';
import { NodeClient } from '../upstream/node-client.js';
import type { HealthSettings } from '../config/node-health-settings.js';
import { STANDALONE, type NodeStateLinks } from './node-state-links.js';
import { NodeState } from './node-state.js';
import { NodeLoadPoller } from './node-load-poller.js';

/** Gives a node a reachable base URL (starts a simulated node) and says how to stop it. */
export type NodeLauncher = (node: NodeConfig) => Promise<{ node: NodeConfig; stop: () => Promise<void> }>;

interface Slot {
  readonly state: NodeState;
  /** The node as configured, before the launcher filled in a base URL: used to detect changes. */
  readonly declared: NodeConfig;
  readonly stop: () => Promise<void>;
  /** Reads the node's own load, when `load_metrics` is set; stopped when the slot is retired. */
  readonly poller: NodeLoadPoller | undefined;
}

/**
 * The live set of nodes. Nodes can be added, replaced and removed at runtime (admin API,
 * SIGHUP): a removed or replaced node stops taking requests at once and is closed only
 * when its in-flight requests have finished.
 */
export class NodeRegistry {
  private readonly slots = new Map<string, Slot>();
  private readonly retiring = new Set<Slot>();
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly launch: NodeLauncher,
    private health: HealthSettings,
    /** Ties every node's state to the other instances on the store. */
    private readonly links: NodeStateLinks = STANDALONE,
  ) {}

  /** New health settings for every node (configuration reload). */
  setHealth(health: HealthSettings): void {
    this.health = health;
    for (const slot of this.slots.values()) slot.state.health = health;
  }

  get(id: string): NodeState | undefined {
    return this.slots.get(id)?.state;
  }

  list(): NodeState[] {
    return [...this.slots.values()].map((slot) => slot.state);
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** Adds a node, or replaces one whose settings changed; an unchanged node keeps its state. */
  async put(node: NodeConfig): Promise<NodeState> {
    const existing = this.slots.get(node.id);
    if (existing && isDeepStrictEqual(existing.declared, node)) return existing.state;
    const launched = await this.launch(node);
    const state = new NodeState(launched.node, new NodeClient(launched.node), this.health, this.links);
    if (existing) {
      state.drained = existing.state.drained;
      state.predecessor = existing.state;
      this.retire(existing);
    }
    const settings = launched.node.loadMetrics;
    const poller =
      settings &&
      new NodeLoadPoller(NodeLoadPoller.urlOf(settings, launched.node.baseUrl), settings, (load) =>
        state.setReported(load, settings.intervalMs),
      );
    this.slots.set(node.id, { state, declared: node, stop: launched.stop, poller });
    poller?.start();
    return state;
  }

  /** Removes a node: no new requests; closed once idle. */
  remove(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    this.slots.delete(id);
    this.retire(slot);
    return true;
  }

  /** Makes the registry hold exactly these nodes. */
  async reconcile(nodes: readonly NodeConfig[]): Promise<void> {
    await this.putAll(nodes);
    this.removeAllBut(new Set(nodes.map((node) => node.id)));
  }

  /** Adds or replaces these nodes and removes none (a reload removes the others once it swaps the configuration). */
  async putAll(nodes: readonly NodeConfig[]): Promise<void> {
    for (const node of nodes) await this.put(node);
  }

  /** Removes every node whose id is not in `wanted`. */
  removeAllBut(wanted: ReadonlySet<string>): void {
    for (const id of [...this.slots.keys()]) if (!wanted.has(id)) this.remove(id);
  }

  /** Closes every node now (shutdown). */
  async close(): Promise<void> {
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    const all = [...this.slots.values(), ...this.retiring];
    this.slots.clear();
    this.retiring.clear();
    await Promise.all(all.map((slot) => closeSlot(slot)));
  }

  private retire(slot: Slot): void {
    slot.state.retired = true;
    slot.poller?.stop();
    this.retiring.add(slot);
    this.sweepTimer ??= setInterval(() => this.sweep(), 200);
    this.sweepTimer.unref();
    this.sweep();
  }

  private sweep(): void {
    for (const slot of this.retiring) {
      if (slot.state.inFlight > 0) continue;
      this.retiring.delete(slot);
      void closeSlot(slot);
    }
    if (this.retiring.size === 0 && this.sweepTimer !== undefined) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
    }
  }
}

async function closeSlot(slot: Slot): Promise<void> {
  slot.poller?.stop();
  await slot.state.client.close().catch(() => undefined);
  await slot.stop().catch(() => undefined);
}
