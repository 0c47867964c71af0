import type { KeyLookup } from './auth/key-registry.js';
import type { GatewayConfig, ModelConfig } from './config/gateway-config.js';
import type { NodeRegistry } from './routing/node-registry.js';
import type { RouteTable } from './routing/route-table.js';
import type { Router } from './routing/router.js';

/**
 * What the routes need. Built at start; `config`, `keys` and `models` are
 * swapped together when the configuration is reloaded (SIGHUP), so handlers read them
 * through this object at every request instead of keeping copies.
 */
export interface GatewayServices {
  config: GatewayConfig;
  keys: KeyLookup;
  models: ReadonlyMap<string, ModelConfig>;
  readonly router: Router;
  /** Model → nodes, configuration plus runtime additions. */
  readonly routes: RouteTable;
  readonly nodes: NodeRegistry;
}
