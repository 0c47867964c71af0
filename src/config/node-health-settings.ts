/** Passive outlier ejection and active probing settings (config `health`). */
export interface HealthSettings {
  /** Consecutive node failures that eject a node. */
  readonly failureThreshold: number;
  /** First ejection cooldown; doubles with each ejection in a row, up to `maxEjectionMs`. */
  readonly baseEjectionMs: number;
  readonly maxEjectionMs: number;
  /** Active probe interval; 0 disables probes. */
  readonly probeIntervalMs: number;
  /** Path probed with GET, relative to the node's base URL. */
  readonly probePath: string;
  readonly probeTimeoutMs: number;
}

export const DEFAULT_HEALTH: HealthSettings = {
  failureThreshold: 5,
  baseEjectionMs: 5_000,
  maxEjectionMs: 300_000,
  probeIntervalMs: 0,
  probePath: '/models',
  probeTimeoutMs: 2_000,
};
