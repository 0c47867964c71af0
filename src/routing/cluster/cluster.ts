import type { Logger } from '../../observability/logger.js';
import type { NodeRegistry } from '../node-registry.js';
import type { NodeStateLinks } from '../node-state-links.js';
import type { NodeStatePatch } from '../../store/cluster-store.js';
import type { Store } from '../../store/store.js';
import { InstanceRegistry, newInstanceId } from './instance-registry.js';
import { NodeStateSync } from './node-state-sync.js';

/**
 * This gateway among the instances sharing its store: what its nodes are linked to.
 * On a shared store (PostgreSQL) it registers the instance, splits max_concurrency and
 * shares node drain and ejection; on any other store it is the gateway alone and does nothing.
 */
export class Cluster implements NodeStateLinks {
  private constructor(
    readonly instanceId: string,
    private readonly instances: InstanceRegistry | undefined,
    private readonly sync: NodeStateSync | undefined,
  ) {}

  /** Joins the instances on this store (before the gateway takes traffic, so it is counted from its first request). */
  static async join(store: Store, logger: Logger): Promise<Cluster> {
    const instanceId = newInstanceId();
    if (!store.cluster.shared) return new Cluster(instanceId, undefined, undefined);
    const instances = new InstanceRegistry(store, instanceId, logger);
    await instances.join();
    return new Cluster(instanceId, instances, new NodeStateSync(store, instanceId, logger));
  }

  /** Applies the shared node states to these nodes and follows the other instances' changes. */
  async follow(nodes: NodeRegistry): Promise<void> {
    await this.sync?.follow(nodes);
  }

  /** Live instances on the store, this one included (1 when the store is not shared). */
  get instanceCount(): number {
    return this.instances?.instanceCount ?? 1;
  }

  concurrencyShare(maxConcurrency: number): number {
    return this.instances?.share(maxConcurrency) ?? maxConcurrency;
  }

  changed(nodeId: string, patch: NodeStatePatch): void {
    this.sync?.publish(nodeId, patch);
  }

  /** Graceful shutdown: writes the node changes still waiting, then leaves the registry so the others take over this instance's share at once. */
  async leave(): Promise<void> {
    await this.sync?.flushed();
    await this.instances?.leave();
  }
}
