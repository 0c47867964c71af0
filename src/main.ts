import type { AddressInfo } from 'node:net';
import { AccountCache } from './billing/account-cache.js';
import { applyConfigToStore, type AppliedKeys } from './billing/apply-config.js';
import { Billing } from './billing/billing.js';
import { SpendHoldBook } from './billing/spend-hold-book.js';
import { loadTokenCounter } from './billing/token-counter.js';
import type { GatewayConfig, NodeConfig } from './config/gateway-config.js';
import { ModelCatalog } from './config/model-catalog.js';
import type { GatewayServices } from './gateway-services.js';
import type { Server } from 'node:http';
import { createOpsServer } from './http/ops-server.js';
import { createGatewayServer, type GatewayHttpServer } from './http/server.js';
import { modelsRoutableCheck } from './lifecycle/models-routable-check.js';
import { ReadinessChecks } from './lifecycle/readiness-checks.js';
import { ShutdownHooks } from './lifecycle/shutdown-hooks.js';
import { createLogger, type Logger } from './observability/logger.js';
import { GatewayMetrics } from './observability/metrics.js';
import { Cluster } from './routing/cluster/cluster.js';
import { HealthProber } from './routing/health-prober.js';
import { NodeRegistry, type NodeLauncher } from './routing/node-registry.js';
import { PoolRouter } from './routing/pool-router.js';
import { RouteTable } from './routing/route-table.js';
import { openStore, parseStoreLocation } from './store/open-store.js';
import { UsageJournal } from './billing/usage-journal.js';
import { createRateLimiter } from './limits/rate-limiter.js';
import { trustedProxyList } from './limits/client-ip.js';
import { UsageLedger } from './billing/usage-ledger.js';
import { RequestLogWriter } from './request-log/request-log-writer.js';
import { BoundedResponseStore } from './responses-state/bounded-response-store.js';
import { startTracing } from './telemetry/tracing.js';

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

/**
 * Starts the gateway's own simulated nodes on free local ports; other nodes are used as
 * they are. The simulator is imported only when the configuration has a simulated node.
 */
const launchNode: NodeLauncher = async (node: NodeConfig) => {
  if (node.simulated === undefined) return { node, stop: async () => undefined };
  const { SimulatedNode } = await import('./simulator/simulated-node.js');
  const simulator = new SimulatedNode({
    firstByteMs: node.simulated.firstByteMs,
    tokensPerSecond: node.simulated.tokensPerSecond,
    reasoningField: node.simulated.reasoningField,
    protocol: node.protocol,
    scripts: node.simulated.scripts,
    prefixCache: node.simulated.prefixCache,
    prefillMsPerToken: node.simulated.prefillMsPerToken,
    maxNumSeqs: node.simulated.maxNumSeqs,
  });
  const baseUrl = await simulator.listen(node.simulated.port, '127.0.0.1');
  return { node: { ...node, baseUrl }, stop: () => simulator.close() };
};

function modelsOf(config: GatewayConfig) {
  return new ModelCatalog(config.models);
}

/** Wiring only: store → caches → node registry → router → HTTP server, plus reload and health probes. */
export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger(config.logLevel, config.log.format);
  // The tokenizer's tables take ~0.4 s of synchronous loading: done before listening, and
  // only when a paid model needs estimates, so it never stalls requests in flight.
  if (config.models.some((model) => model.pricing !== undefined)) await loadTokenCounter();
  const store = await openStore(parseStoreLocation(config.store));
  const accounts = new AccountCache(store);
  accounts.windows.configure(config.budgetWindows);
  const journal =
    config.usage.journalDir === undefined
      ? undefined
      : new UsageJournal(config.usage.journalDir, {
          streamProgressIntervalMs: config.usage.streamProgressIntervalMs,
          onProgressError: (error) =>
            logger.error({ err: error }, 'stream progress could not be written to the usage journal'),
        });
  const holds = store.spendHolds === undefined ? undefined : new SpendHoldBook(store.spendHolds, accounts, logger);
  if (holds !== undefined) store.onChange((change) => holds.onStoreChange(change));
  const usage = new UsageLedger(store, accounts, journal, logger, config.usage, holds?.holder);
  await usage.replayJournal();
  logAppliedKeys(logger, await applyConfigToStore(store, config));
  await accounts.load();
  const limiter = createRateLimiter({ settings: config.limits, redisUrl: config.redis, logger });
  await limiter.start();
  const cluster = await Cluster.join(store, logger);
  const nodes = new NodeRegistry(launchNode, config.health, cluster);
  await nodes.reconcile(config.nodes);
  await cluster.follow(nodes);
  const routes = new RouteTable(config.models, config.nodes);
  const readiness = new ReadinessChecks();
  const responses = new BoundedResponseStore(store.responseRows, () => services.config.responses, logger);
  let http: GatewayHttpServer | undefined;
  const metrics = new GatewayMetrics(
    {
      nodes: () => nodes.list(),
      instances: () => cluster.instanceCount,
      readiness,
      requestsInFlight: () => http?.requestsInFlight() ?? 0,
      isKnownModel: (model) => services.models.has(model),
      usageRowsWaiting: () => usage.pendingRows,
      storedResponses: () => responses.size(),
    },
    { processMetrics: config.metrics.enabled },
  );
  const requestRecords = config.requestLog.enabled
    ? new RequestLogWriter(
        store.requestLog,
        {
          settings: () => services.config.requestLog,
          knownSecrets: () => knownSecrets(services.config),
        },
        logger,
        metrics.registry,
      )
    : undefined;
  const tracing = startTracing(config.telemetry, {
    onDrop: (reason, count) => metrics.traceSpansDropped(reason, count),
  });
  const services: GatewayServices = {
    config,
    models: modelsOf(config),
    router: new PoolRouter(routes, nodes),
    routes,
    nodes,
    store,
    responses,
    accounts,
    billing: new Billing(accounts, usage, holds, options.clock),
    usage,
    limiter,
    trustedProxies: trustedProxyList(config.trustedProxies),
    readiness,
    shutdownHooks: new ShutdownHooks(),
    requestRecords,
    metrics,
    tracing,
  };
  readiness.register(modelsRoutableCheck(services));
  readiness.register({ name: 'store', check: () => store.ping() });
  if (config.redis !== undefined) readiness.register({ name: 'redis', check: async () => services.limiter.shared });
  // Run last registered first: usage rows are written, then the limiter and the store close.
  services.shutdownHooks.add({ name: 'store', run: () => store.close() });
  services.shutdownHooks.add({ name: 'rate limiter', run: () => services.limiter.close() });
  if (holds !== undefined) services.shutdownHooks.add({ name: 'spend holds', run: () => holds.close() });
  services.shutdownHooks.add({ name: 'usage ledger', run: () => usage.close() });
  if (requestRecords !== undefined) {
    requestRecords.start();
    services.shutdownHooks.add({ name: 'request records', run: () => requestRecords.close() });
  }
  services.shutdownHooks.add({ name: 'instance registry', run: () => cluster.leave() });
  services.shutdownHooks.add({ name: 'stored responses sweep', run: () => responses.stop() });
  if (tracing !== undefined) {
    // Registered last, run first: the spans of the requests just finished go out while the rest closes.
    services.shutdownHooks.add({ name: 'traces', run: () => tracing.shutdown() });
    logger.info({ capture_content: config.telemetry.captureContent }, 'traces exported over OTLP');
  }
  responses.startSweeping();
  const prober = new HealthProber(nodes, () => services.config.health, logger);
  prober.start();
  http = createGatewayServer(services, logger);
  const server = http.server;
  const port = await listen(server, options.port ?? config.listen.port, config.listen.host, config.http.listenBacklog);
  let opsServer: Server | undefined;
  let metricsUrl: string | undefined;
  if (config.metrics.enabled && config.metrics.listen !== undefined) {
    const gatewayHttp = http;
    opsServer = createOpsServer(services, () => gatewayHttp.isShuttingDown());
    const opsPort = await listen(opsServer, config.metrics.listen.port, config.metrics.listen.host).catch(
      async (error: unknown) => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await nodes.close();
        throw error;
      },
    );
    metricsUrl = `http://${urlHost(config.metrics.listen.host)}:${opsPort}/metrics`;
  }
  let closing: Promise<void> | undefined;
  const stop = async (graceMs: number, gatewayHttp: GatewayHttpServer) => {
    prober.stop();
    logger.info({ in_flight: gatewayHttp.requestsInFlight(), grace_ms: graceMs }, 'shutting down');
    const outcome = await gatewayHttp.shutdown(graceMs);
    if (opsServer !== undefined) {
      const ops = opsServer;
      await new Promise<void>((resolve) => {
        ops.close(() => resolve());
        ops.closeAllConnections();
      });
    }
    await services.shutdownHooks.runAll(logger);
    await nodes.close();
    logger.info({ finished: outcome.finished, cut: outcome.cut }, 'shutdown complete');
  };
  return {
    baseUrl: `http://${urlHost(config.listen.host)}:${port}/v1`,
    port,
    logger,
    services,
    metricsUrl,
    async reload(next: GatewayConfig) {
      const declared = new Set(next.nodes.map((node) => node.id));
      const runtimeNodes = routes.runtimeNodeConfigs().filter((node) => !declared.has(node.id));
      await nodes.reconcile([...next.nodes, ...runtimeNodes]);
      nodes.setHealth(next.health);
      routes.setConfig(next.models, next.nodes);
      if (next.models.some((model) => model.pricing !== undefined)) await loadTokenCounter();
      logAppliedKeys(logger, await applyConfigToStore(store, next));
      await accounts.load();
      accounts.windows.configure(next.budgetWindows);
      if (
        JSON.stringify([next.limits, next.redis]) !== JSON.stringify([services.config.limits, services.config.redis])
      ) {
        const previous = services.limiter;
        services.limiter = createRateLimiter({ settings: next.limits, redisUrl: next.redis, logger });
        await services.limiter.start();
        await previous.close();
      }
      services.trustedProxies = trustedProxyList(next.trustedProxies);
      services.models = modelsOf(next);
      services.config = next;
      prober.start();
    },
    close(closeOptions = {}) {
      closing ??= stop(closeOptions.graceMs ?? 0, http);
      return closing;
    },
  };
}

/** One line each when the file blocked keys whose line is gone, or restored keys whose line came back (prefixes only). */
function logAppliedKeys(logger: Logger, applied: AppliedKeys): void {
  if (applied.blocked.length > 0)
    logger.warn({ keys: applied.blocked }, 'keys removed from the configuration are blocked');
  if (applied.restored.length > 0)
    logger.info({ keys: applied.restored }, 'keys back in the configuration are active again');
}

function listen(server: Server, port: number, host: string, backlog?: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog }, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** A host for a URL clients on this machine can use. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** The secrets a kept request or reply body must not hold: the keys of the file, the admin key, the nodes' keys. */
function knownSecrets(config: GatewayConfig): string[] {
  const secrets = config.keys.map((key) => key.key);
  if (config.adminKey !== undefined) secrets.push(config.adminKey);
  for (const node of config.nodes) if (node.apiKey !== undefined) secrets.push(node.apiKey);
  return secrets;
}
