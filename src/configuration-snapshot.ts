import type { BlockList } from 'node:net';
import type { GatewayConfig } from './config/gateway-config.js';
import type { ModelCatalog } from './config/model-catalog.js';
import type { RateLimiter } from './limits/rate-limiter.js';
import type { RouteView } from './routing/route-table.js';
import type { Router } from './routing/router.js';

/**
 * Everything a request reads that a configuration decides, built whole (every await done)
 * and frozen, then swapped in one assignment (`GatewayServices.snapshot`) by a reload or a
 * runtime node change. A request takes it once, at its start (`RequestContext.snapshot`),
 * and reads only it to its end, so it never sees two configurations.
 */
export interface ConfigurationSnapshot {
  readonly config: GatewayConfig;
  /** The models by id, and by the aliases clients may send (`resolve`). */
  readonly models: ModelCatalog;
  /** Model → routes: the configuration's plus those of nodes added at runtime, as they were when this snapshot was made. */
  readonly routes: RouteView;
  /** Picks the nodes of `routes` to try, by the nodes' live state. */
  readonly router: Router;
  /** Undefined when no proxy is trusted. */
  readonly trustedProxies: BlockList | undefined;
  /** Replaced with the snapshot when the limit settings change; the previous one closes once its requests had time to end. */
  readonly limiter: RateLimiter;
}
