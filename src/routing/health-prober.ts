import type { Logger } from '../observability/logger.js';
import type { HealthSettings } from '../config/node-health-settings.js';
import type { NodeRegistry } from './node-registry.js';

/**
 * Optional active health checks (`health.probe_interval_ms`): every interval, each
 * node that is not drained gets a GET of `probe_path`. A failed probe ejects a healthy
 * node; a successful one brings an ejected node back at once.
 */
export class HealthProber {
  private timer: NodeJS.Timeout | undefined;
  private intervalMs = 0;

  constructor(
    private readonly nodes: NodeRegistry,
    private readonly settings: () => HealthSettings,
    private readonly logger: Logger,
  ) {}

  /** Starts, restarts with a new interval, or stops, per the current settings. */
  start(): void {
    const { probeIntervalMs } = this.settings();
    if (probeIntervalMs === this.intervalMs && (this.timer !== undefined || probeIntervalMs === 0)) return;
    this.stop();
    this.intervalMs = probeIntervalMs;
    if (probeIntervalMs === 0) return;
    this.timer = setInterval(() => void this.probeAll(), probeIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.intervalMs = 0;
  }

  async probeAll(): Promise<void> {
    const { probePath, probeTimeoutMs } = this.settings();
    await Promise.all(
      this.nodes.list().map(async (state) => {
        if (state.drained || state.retired) return;
        const healthy = await state.client.probe(probePath, probeTimeoutMs);
        const condition = state.condition();
        if (healthy && condition !== 'healthy') {
          state.recordSuccess(undefined);
          this.logger.info({ node: state.id }, 'node recovered (probe succeeded)');
        } else if (!healthy && condition === 'healthy') {
          state.eject();
          this.logger.warn({ node: state.id, cooldown_ms: state.cooldownLeftMs() }, 'node ejected (probe failed)');
        }
      }),
    );
  }
}
