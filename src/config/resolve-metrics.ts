import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { MetricsSettings } from './gateway-config.js';

/** GET /metrics: on by default, on the main listener unless given an address of its own. */
export function resolveMetrics(file: ConfigFile['metrics']): MetricsSettings {
  return {
    enabled: file?.enabled ?? true,
    listen: file?.listen && { host: file.listen.host ?? DEFAULTS.host, port: file.listen.port },
  };
}
