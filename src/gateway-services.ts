import type { KeyLookup } from './auth/key-registry.js';
import type { GatewayConfig, ModelConfig } from './config/gateway-config.js';
import type { Router } from './routing/router.js';

/** What the routes need, built once at start by main.ts. */
export interface GatewayServices {
  readonly config: GatewayConfig;
  readonly keys: KeyLookup;
  readonly models: ReadonlyMap<string, ModelConfig>;
  readonly router: Router;
}
