import type { ConfigFile } from './config-schema.js';
import { DEFAULT_HEALTH, type HealthSettings } from './node-health-settings.js';

/** Outlier ejection and probing of nodes, with defaults. */
export function resolveHealth(file: ConfigFile['health']): HealthSettings {
  return {
    failureThreshold: file?.failure_threshold ?? DEFAULT_HEALTH.failureThreshold,
    baseEjectionMs: file?.base_ejection_ms ?? DEFAULT_HEALTH.baseEjectionMs,
    maxEjectionMs: file?.max_ejection_ms ?? DEFAULT_HEALTH.maxEjectionMs,
    probeIntervalMs: file?.probe_interval_ms ?? DEFAULT_HEALTH.probeIntervalMs,
    probePath: file?.probe_path ?? DEFAULT_HEALTH.probePath,
    probeTimeoutMs: file?.probe_timeout_ms ?? DEFAULT_HEALTH.probeTimeoutMs,
  };
}
