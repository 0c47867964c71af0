import type { Logger } from '../observability/logger.js';
import type { NodeRegistry } from '../routing/node-registry.js';
import type { NodeStatePatch } from '../store/cluster-store.js';
import type { Store } from '../store/store.js';

/**
 * Shares node drain and ejection between the instances on a store. Changes made here are
 * written off the request path (a failed write is logged, never felt by a request); the
 * store announces them to every instance, which applies those of others (its own are
 * already applied, and applying never writes back: no echo). At start, and when the
 * store's change feed was interrupted, the stored states are applied.
 */
export class NodeStateSync {
  private nodes: NodeRegistry | undefined;

  constructor(
    private readonly store: Pick<Store, 'cluster' | 'onChange'>,
    private readonly instanceId: string,
    private readonly logger: Logger,
  ) {}

  /** Tells the other instances about a change made here. */
  publish(nodeId: string, patch: NodeStatePatch): void {
    this.store.cluster.writeNodeState(nodeId, patch, this.instanceId).catch((error: unknown) => {
      this.logger.warn({ node: nodeId, err: error, ...patch }, 'could not share a node state change with the other instances');
    });
  }

  /** Applies the stored states to these nodes, then every other instance's changes as they come. */
  async follow(nodes: NodeRegistry): Promise<void> {
    this.nodes = nodes;
    this.store.onChange((change) => {
      if (change.kind === 'node' && change.instanceId !== this.instanceId) {
        const { kind: _kind, id, instanceId, ...patch } = change;
        const state = nodes.get(id);
        if (state === undefined) return;
        state.applyShared(patch);
        this.logger.info({ node: id, by: instanceId, ...patch, state: state.condition() }, 'node state changed by another instance');
      } else if (change.kind === 'all') {
        void this.applyStored();
      }
    });
    await this.applyStored();
  }

  private async applyStored(): Promise<void> {
    try {
      for (const record of await this.store.cluster.loadNodeStates()) {
        this.nodes?.get(record.nodeId)?.applyShared({
          drained: record.drained,
          ...(record.ejectedForMs > 0 ? { ejectedForMs: record.ejectedForMs } : {}),
        });
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'could not load the node states shared by other instances');
    }
  }
}
