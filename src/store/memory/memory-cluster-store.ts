import type { ClusterChange, ClusterStore, NodeStatePatch, NodeStateRecord } from '../cluster-store.js';

interface StoredNodeState {
  drained: boolean;
  /** Epoch ms; 0: not ejected. */
  ejectedUntil: number;
  updatedBy: string;
}

/**
 * The cluster tables of the memory store: one process, so nobody else reads them; kept
 * only so the memory store behaves like the SQL one.
 */
export class MemoryClusterStore implements ClusterStore {
  readonly shared = false;
  private readonly nodes = new Map<string, StoredNodeState>();
  /** Instance id → last heartbeat, epoch ms. */
  private readonly instances = new Map<string, number>();

  constructor(private readonly announce: (change: ClusterChange) => void) {}

  async loadNodeStates(): Promise<NodeStateRecord[]> {
    const now = Date.now();
    return [...this.nodes].map(([nodeId, state]) => ({
      nodeId,
      drained: state.drained,
      ejectedForMs: Math.max(0, state.ejectedUntil - now),
      updatedBy: state.updatedBy,
    }));
  }

  async writeNodeState(nodeId: string, patch: NodeStatePatch, instanceId: string): Promise<void> {
    const state = this.nodes.get(nodeId) ?? { drained: false, ejectedUntil: 0, updatedBy: instanceId };
    if (patch.drained !== undefined) state.drained = patch.drained;
    if (patch.ejectedForMs !== undefined)
      state.ejectedUntil = patch.ejectedForMs === null ? 0 : Date.now() + patch.ejectedForMs;
    state.updatedBy = instanceId;
    this.nodes.set(nodeId, state);
    this.announce({ kind: 'node', id: nodeId, instanceId, ...patch });
  }

  async heartbeat(instanceId: string, expireAfterMs: number): Promise<string[]> {
    const now = Date.now();
    const joined = !this.instances.has(instanceId);
    this.instances.set(instanceId, now);
    let died = false;
    for (const [id, beat] of this.instances) {
      if (beat < now - expireAfterMs) died = this.instances.delete(id) || died;
    }
    if (joined || died) this.announce({ kind: 'instances', id: instanceId });
    return this.liveInstances(expireAfterMs);
  }

  async liveInstances(expireAfterMs: number): Promise<string[]> {
    const oldest = Date.now() - expireAfterMs;
    return [...this.instances]
      .filter(([, beat]) => beat >= oldest)
      .map(([id]) => id)
      .sort();
  }

  async leave(instanceId: string): Promise<void> {
    if (this.instances.delete(instanceId)) this.announce({ kind: 'instances', id: instanceId });
  }
}
