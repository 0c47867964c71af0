import type { GatewayConfig } from './config/gateway-config.js';
import type { ConfigurationSnapshot } from './configuration-snapshot.js';
import { ModelCatalog } from './config/model-catalog.js';
import type { GatewayServices } from './gateway-services.js';
import type { GatewayHttpServer } from './http/server.js';
import { modelsRoutableCheck } from './lifecycle/models-routable-check.js';
import { ReadinessChecks } from './lifecycle/readiness-checks.js';
import { ShutdownHooks } from './lifecycle/shutdown-hooks.js';
import { trustedProxyList } from './limits/client-ip.js';
import { createLogger, type Logger } from './observability/logger.js';
import { HealthProber } from './routing/health-prober.js';
import { BoundedResponseStore } from './responses-state/bounded-response-store.js';
import { ConfigurationReloader } from './wiring/configuration-reloader.js';
import { configurationSnapshotOf } from './wiring/configuration-snapshot-of.js';
import { openMoney, type Money } from './wiring/open-money.js';
import { startLimiter } from './wiring/start-limiter.js';
import { startObservability, type Observability } from './wiring/start-observability.js';
import { loadTracing, type StartTracing } from './telemetry/load-tracing.js';
import { startRouting, type Routing } from './wiring/start-routing.js';
import { startServers } from './wiring/start-servers.js';

/** A running gateway. */
export interface RunningGateway {
  /** The OpenAI base URL clients use, e.g. http://127.0.0.1:8080/v1. */
  readonly baseUrl: string;
  readonly port: number;
  readonly logger: Logger;
  readonly services: GatewayServices;
  /** Applies a new configuration without dropping in-flight requests (listen address excepted). */
  reload(config: GatewayConfig): Promise<void>;
  /** The separate metrics address (`metrics.listen`), once listening. */
  readonly metricsUrl: string | undefined;
  /**
   * Stops the gateway: no new connections; in-flight requests and streams get `graceMs`
   * (default 0: end them now) to finish, then are ended (SSE error event / 503
   * shutting_down); then the shutdown hooks run and node pools and simulated nodes close.
   * Calling it again returns the same stop.
   */
  close(options?: { readonly graceMs?: number }): Promise<void>;
}

export interface StartOptions {
  /** Overrides the configured listen port (0 = any free port; tests use it). */
  readonly port?: number;
  readonly logger?: Logger;
  /** The wall clock budget windows follow (epoch ms); tests move it across a window's end. */
  readonly clock?: () => number;
}

/** Wiring only: store and money → nodes and routes → observability → HTTP servers, plus reload and health probes. */
export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger(config.logLevel, config.log.format);
  const money = await openMoney(config, logger, options.clock);
  const limiter = await startLimiter(config, logger);
  const routing = await startRouting(config, money.store, logger);
  const snapshot = configurationSnapshotOf(
    {
      config,
      models: new ModelCatalog(config.models),
      routes: routing.routes.view(),
      trustedProxies: trustedProxyList(config.trustedProxies),
      limiter,
    },
    routing.nodes,
  );
  let http: GatewayHttpServer | undefined;
  const responses = new BoundedResponseStore(
    money.store.responseRows,
    () => services.snapshot.config.responses,
    logger,
  );
  const startTracing = await loadTracing(config.telemetry);
  const services = assembleServices(
    snapshot,
    money,
    routing,
    responses,
    logger,
    () => http?.requestsInFlight() ?? 0,
    startTracing,
  );
  // A node added or removed through the admin API changes the routes: a new snapshot, the configuration's own.
  routing.routes.onRuntimeChange = (routes) => {
    services.snapshot = configurationSnapshotOf({ ...services.snapshot, routes }, routing.nodes);
  };
  const prober = new HealthProber(routing.nodes, () => services.snapshot.config.health, logger);
  const reloader = new ConfigurationReloader(services, prober, logger);
  registerChecksAndHooks(services, money, routing, reloader, responses);
  responses.startSweeping();
  prober.start();
  const servers = await startServers(services, config, logger, options.port);
  http = servers.http;
  let closing: Promise<void> | undefined;
  const stop = async (graceMs: number, gatewayHttp: GatewayHttpServer) => {
    prober.stop();
    logger.info({ in_flight: gatewayHttp.requestsInFlight(), grace_ms: graceMs }, 'shutting down');
    const outcome = await gatewayHttp.shutdown(graceMs);
    await servers.closeOps();
    await services.shutdownHooks.runAll(logger);
    await routing.nodes.close();
    logger.info({ finished: outcome.finished, cut: outcome.cut }, 'shutdown complete');
  };
  return {
    baseUrl: servers.baseUrl,
    port: servers.port,
    logger,
    services,
    metricsUrl: servers.metricsUrl,
    reload: (next) => reloader.reload(next),
    close(closeOptions = {}) {
      closing ??= stop(closeOptions.graceMs ?? 0, servers.http);
      return closing;
    },
  };
}

/** The services around the first snapshot; `requestsInFlight` reads the HTTP server made after them. */
function assembleServices(
  snapshot: ConfigurationSnapshot,
  money: Money,
  routing: Routing,
  responses: BoundedResponseStore,
  logger: Logger,
  requestsInFlight: () => number,
  startTracing: StartTracing | undefined,
): GatewayServices {
  const { config } = snapshot;
  const { store, accounts, usage, billing } = money;
  const { nodes, routes, cluster } = routing;
  const readiness = new ReadinessChecks();
  const current = () => services.snapshot.config;
  const observability: Observability = startObservability(
    config,
    current,
    store,
    {
      nodes: () => nodes.list(),
      instances: () => cluster.instanceCount,
      readiness,
      requestsInFlight,
      isKnownModel: (model) => services.snapshot.models.has(model),
      usageRowsWaiting: () => usage.pendingRows,
      storedResponses: () => responses.size(),
    },
    logger,
    startTracing,
  );
  const services: GatewayServices = {
    snapshot,
    routes,
    nodes,
    store,
    responses,
    accounts,
    billing,
    usage,
    readiness,
    shutdownHooks: new ShutdownHooks(),
    ...observability,
  };
  return services;
}

/** Readiness checks, and the shutdown hooks in the order they must run (last registered runs first). */
function registerChecksAndHooks(
  services: GatewayServices,
  money: Money,
  routing: Routing,
  reloader: ConfigurationReloader,
  responses: BoundedResponseStore,
): void {
  const { readiness, shutdownHooks, store, requestRecords, tracing } = services;
  readiness.register(modelsRoutableCheck(services));
  readiness.register({ name: 'store', check: () => store.ping() });
  if (services.snapshot.config.redis !== undefined)
    readiness.register({ name: 'redis', check: async () => services.snapshot.limiter.shared });
  // Run last registered first: usage rows are written, then the limiter and the store close.
  shutdownHooks.add({ name: 'store', run: () => store.close() });
  shutdownHooks.add({
    name: 'rate limiter',
    run: async () => {
      await reloader.close();
      await services.snapshot.limiter.close();
    },
  });
  const { holds, usage } = money;
  if (holds !== undefined) shutdownHooks.add({ name: 'spend holds', run: () => holds.close() });
  shutdownHooks.add({ name: 'usage ledger', run: () => usage.close() });
  if (requestRecords !== undefined) {
    requestRecords.start();
    shutdownHooks.add({ name: 'request records', run: () => requestRecords.close() });
  }
  shutdownHooks.add({ name: 'instance registry', run: () => routing.cluster.leave() });
  shutdownHooks.add({ name: 'stored responses sweep', run: () => responses.stop() });
  // Registered last, run first: the spans of the requests just finished go out while the rest closes.
  if (tracing !== undefined) shutdownHooks.add({ name: 'traces', run: () => tracing.shutdown() });
}
