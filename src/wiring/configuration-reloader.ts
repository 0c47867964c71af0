import { applyConfigToStore } from '../billing/apply-config.js';
import { loadTokenCounter } from '../billing/token-counter.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { ModelCatalog } from '../config/model-catalog.js';
import type { GatewayServices } from '../gateway-services.js';
import { trustedProxyList } from '../limits/client-ip.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Logger } from '../observability/logger.js';
import type { HealthProber } from '../routing/health-prober.js';
import { configurationSnapshotOf } from './configuration-snapshot-of.js';
import { logAppliedKeys } from './log-applied-keys.js';
import { startLimiter } from './start-limiter.js';

/** How long past the old total time-out a replaced limiter stays open: the last charges of its requests. */
const LIMITER_CLOSE_MARGIN_MS = 5_000;

/**
 * Applies new configurations, one at a time (a second SIGHUP waits for the first), without
 * dropping in-flight requests. Every await comes first: nodes started, keys applied to the
 * store, a new limiter connected when the limit settings changed. Then, with no await in
 * between, nodes no longer wanted are removed, the route table and budget windows follow the
 * file, and the new snapshot replaces the old in one assignment. Requests already running
 * keep the snapshot they started with, the replaced limiter included.
 */
export class ConfigurationReloader {
  private queue: Promise<void> = Promise.resolve();
  /** Limiters replaced by a reload, each with the timer that closes it. */
  private readonly retiring = new Map<RateLimiter, NodeJS.Timeout>();

  constructor(
    private readonly services: GatewayServices,
    private readonly prober: HealthProber,
    private readonly logger: Logger,
  ) {}

  reload(next: GatewayConfig): Promise<void> {
    const run = this.queue.then(() => this.apply(next));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Closes the replaced limiters still waiting for their requests (shutdown). */
  async close(): Promise<void> {
    const limiters = [...this.retiring];
    this.retiring.clear();
    for (const [, timer] of limiters) clearTimeout(timer);
    await Promise.all(limiters.map(([limiter]) => limiter.close()));
  }

  private async apply(next: GatewayConfig): Promise<void> {
    const { services, logger } = this;
    const { nodes, routes, store, accounts } = services;
    const current = services.snapshot;
    // What the file's content can make throw, before anything changes.
    const models = new ModelCatalog(next.models);
    const trustedProxies = trustedProxyList(next.trustedProxies);
    const declared = new Set(next.nodes.map((node) => node.id));
    await nodes.putAll([...next.nodes, ...routes.runtimeNodeConfigs().filter((node) => !declared.has(node.id))]);
    if (next.models.some((model) => model.pricing !== undefined)) await loadTokenCounter();
    logAppliedKeys(logger, await applyConfigToStore(store, next));
    await accounts.load();
    const limiter = sameLimits(next, current.config) ? current.limiter : await startLimiter(next, logger);
    // No await from here on: no request sees part of the change.
    routes.setConfig(next.models, next.nodes);
    nodes.removeAllBut(new Set([...declared, ...routes.runtimeNodeConfigs().map((node) => node.id)]));
    nodes.setHealth(next.health);
    accounts.windows.configure(next.budgetWindows);
    services.snapshot = configurationSnapshotOf(
      { config: next, models, routes: routes.view(), trustedProxies, limiter },
      nodes,
    );
    this.prober.start();
    if (limiter !== current.limiter) this.retire(current.limiter, current.config.timeouts.totalMs);
  }

  /** Closes a replaced limiter once every request that may hold it has passed its total time-out. */
  private retire(limiter: RateLimiter, totalMs: number): void {
    const timer = setTimeout(() => {
      this.retiring.delete(limiter);
      limiter
        .close()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'a replaced rate limiter failed to close'));
    }, totalMs + LIMITER_CLOSE_MARGIN_MS);
    timer.unref();
    this.retiring.set(limiter, timer);
  }
}

function sameLimits(next: GatewayConfig, current: GatewayConfig): boolean {
  return JSON.stringify([next.limits, next.redis]) === JSON.stringify([current.limits, current.redis]);
}
