import type { Logger } from '../../observability/logger.js';
import type { NodeRegistry } from '../node-registry.js';
import type { NodeStatePatch } from '../../store/cluster-store.js';
import type { Store } from '../../store/store.js';

/** A change made here and not written yet; the ejection's end is kept on this clock until it is written. */
interface PendingChange {
  drained?: boolean;
  /** Epoch ms on this instance's clock; null: recovered. */
  ejectedUntil?: number | null;
}

/**
 * Shares node drain and ejection between the instances on a store. Changes made here are
 * written off the request path (a failed write is logged, never felt by a request), one
 * at a time and in the order they were made (several changes to a node waiting meanwhile
 * are merged, the later winning); the store announces them to every instance, which
 * applies those of others (its own are already applied, and applying never writes back:
 * no echo). At start, and when the store's change feed was interrupted, the stored states
 * are applied.
 */
export class NodeStateSync {
  private nodes: NodeRegistry | undefined;
  private readonly pending = new Map<string, PendingChange>();
  private writing: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<Store, 'cluster' | 'onChange'>,
    private readonly instanceId: string,
    private readonly logger: Logger,
  ) {}

  /** Tells the other instances about a change made here. */
  publish(nodeId: string, patch: NodeStatePatch, now = Date.now()): void {
    const change = this.pending.get(nodeId) ?? {};
    if (patch.drained !== undefined) change.drained = patch.drained;
    if (patch.ejectedForMs !== undefined)
      change.ejectedUntil = patch.ejectedForMs === null ? null : now + patch.ejectedForMs;
    this.pending.delete(nodeId);
    this.pending.set(nodeId, change);
    this.writing ??= this.writePending();
  }

  /** Resolves once every change published so far was written (or failed). */
  async flushed(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private async writePending(): Promise<void> {
    for (const [nodeId, change] of this.pending) {
      this.pending.delete(nodeId);
      // An ejection that ended while waiting (the store was slow or away) is not sent: it would start again elsewhere.
      const ejectedForMs =
        change.ejectedUntil === undefined || change.ejectedUntil === null
          ? change.ejectedUntil
          : change.ejectedUntil - Date.now();
      const patch: NodeStatePatch = {
        ...(change.drained === undefined ? {} : { drained: change.drained }),
        ...(ejectedForMs === undefined || (ejectedForMs !== null && ejectedForMs <= 0) ? {} : { ejectedForMs }),
      };
      if (Object.keys(patch).length === 0) continue;
      try {
        await this.store.cluster.writeNodeState(nodeId, patch, this.instanceId);
      } catch (error) {
        this.logger.warn(
          { node: nodeId, err: error, ...patch },
          'could not share a node state change with the other instances',
        );
      }
    }
    this.writing = undefined;
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
        this.logger.info(
          { node: id, by: instanceId, ...patch, state: state.condition() },
          'node state changed by another instance',
        );
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
