import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { GatewayConfig } from './gateway-config.js';

/** How many nodes a request tries and on which statuses it moves on, with defaults. */
export function resolveFailover(file: ConfigFile['failover']): GatewayConfig['failover'] {
  return {
    maxAttempts: file?.max_attempts ?? DEFAULTS.maxAttempts,
    retryOnStatus: new Set(file?.retry_on_status ?? DEFAULTS.retryOnStatus),
    maxRetryAfterSeconds: file?.max_retry_after_seconds ?? DEFAULTS.maxRetryAfterSeconds,
  };
}
