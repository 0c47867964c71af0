/**
 * A change to a node's shared state. `drained`: an operator drained (true) or enabled
 * (false) it. `ejectedForMs`: the node was ejected for this many milliseconds from now;
 * `null`: it recovered (the ejection is over everywhere). A field left out is unchanged.
 */
export interface NodeStatePatch {
  readonly drained?: boolean;
  readonly ejectedForMs?: number | null;
}

/** A node's shared state as stored; `ejectedForMs` is what is left of its ejection (0: not ejected). */
export interface NodeStateRecord {
  readonly nodeId: string;
  readonly drained: boolean;
  readonly ejectedForMs: number;
  /** The instance that wrote it last. */
  readonly updatedBy: string;
}

/**
 * What instances sharing one store tell each other (reported through `Store.onChange`):
 * `node`: an instance changed a node's drain or ejection (the patch travels with it);
 * `instances`: an instance joined, left or was found dead.
 */
export type ClusterChange =
  | ({ readonly kind: 'node'; readonly id: string; readonly instanceId: string } & NodeStatePatch)
  | { readonly kind: 'instances'; readonly id: string };

/**
 * Node drain and ejection shared by the gateway instances on one store, and the registry of
 * live instances (their ids and heartbeats). Times are the store's clock (instances may
 * disagree about theirs), so ejections travel as durations.
 */
export interface ClusterStore {
  /** Whether other gateway processes may use this store (PostgreSQL): only then is anything worth sharing. */
  readonly shared: boolean;

  /** Every node's last shared state. */
  loadNodeStates(): Promise<NodeStateRecord[]>;
  /** Changes the given fields of a node's shared state and tells every instance (`node` change). */
  writeNodeState(nodeId: string, patch: NodeStatePatch, instanceId: string): Promise<void>;

  /**
   * Marks this instance alive now, deletes instances silent for longer than `expireAfterMs`,
   * and returns the live instance ids, sorted. Joining or deleting tells every instance
   * (`instances` change).
   */
  heartbeat(instanceId: string, expireAfterMs: number): Promise<string[]>;
  /** The instance ids heard from within `expireAfterMs`, sorted. */
  liveInstances(expireAfterMs: number): Promise<string[]>;
  /** Removes this instance (graceful shutdown) and tells the others. */
  leave(instanceId: string): Promise<void>;
}
