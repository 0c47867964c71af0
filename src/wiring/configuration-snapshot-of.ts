import type { ConfigurationSnapshot } from '../configuration-snapshot.js';
import type { NodeRegistry } from '../routing/node-registry.js';
import { PoolRouter } from '../routing/pool-router.js';

/** What a snapshot is made of; its router is made over `routes`. */
export type SnapshotParts = Omit<ConfigurationSnapshot, 'router'>;

/** A frozen snapshot of these parts, with a router over its own routes and the nodes' live state. */
export function configurationSnapshotOf(parts: SnapshotParts, nodes: NodeRegistry): ConfigurationSnapshot {
  return Object.freeze({
    config: parts.config,
    models: parts.models,
    routes: parts.routes,
    router: new PoolRouter(parts.routes, nodes),
    trustedProxies: parts.trustedProxies,
    limiter: parts.limiter,
  });
}
