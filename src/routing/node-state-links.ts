import type { NodeStatePatch } from '../store/cluster-store.js';

/** How node state is tied to the other gateway instances on the same store. */
export interface NodeStateLinks {
  /** This instance's part of a node's `max_concurrency`. */
  concurrencyShare(maxConcurrency: number): number;
  /**
   * This instance drained, enabled, ejected or recovered a node, to be told to the others.
   * Never called for a change applied from another instance (no echo).
   */
  changed(nodeId: string, patch: NodeStatePatch): void;
}

/** A gateway on its own: the whole `max_concurrency`, nobody to tell. */
export const STANDALONE: NodeStateLinks = {
  concurrencyShare: (maxConcurrency) => maxConcurrency,
  changed: () => undefined,
};
