import type { AddressInfo } from 'node:net';
import { ConfigKeyRegistry } from './auth/key-registry.js';
import type { GatewayConfig, NodeConfig } from './config/gateway-config.js';
import type { GatewayServices } from './gateway-services.js';
import type { Server } from 'node:http';
import { createOpsServer } from './http/ops-server.js';
import { createGatewayServer, type GatewayHttpServer } from './http/server.js';
import { modelsRoutableCheck } from './lifecycle/models-routable-check.js';
import { ReadinessChecks } from './lifecycle/readiness-checks.js';
import { ShutdownHooks } from './lifecycle/shutdown-hooks.js';
import { createLogger, type Logger } from './observability/logger.js';
import { GatewayMetrics } from './observability/metrics.js';
import { HealthProber } from './routing/health-prober.js';
import { NodeRegistry, type NodeLauncher } from './routing/node-registry.js';
import { PoolRouter } from './routing/pool-router.js';
import { RouteTable } from './routing/route-table.js';
import { SimulatedNode } from './simulator/simulated-node.js';

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
}

/** Starts the gateway's own simulated nodes on free local ports; other nodes are used as they are. */
const launchNode: NodeLauncher = async (node: NodeConfig) => {
  if (node.simulated === undefined) return { node, stop: async () => undefined };
  const simulator = new SimulatedNode({
    firstByteMs: node.simulated.firstByteMs,
    tokensPerSecond: node.simulated.tokensPerSecond,
    reasoningField: node.simulated.reasoningField,
  });
  const baseUrl = await simulator.listen(node.simulated.port, '127.0.0.1');
  return { node: { ...node, baseUrl }, stop: () => simulator.close() };
};

function modelsOf(config: GatewayConfig) {
  return new Map(config.models.map((model) => [model.id, model]));
}

/** Wiring only: node registry → router → HTTP server, plus reload and health probes. */
export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger(config.logLevel, config.log.format);
  const nodes = new NodeRegistry(launchNode, config.health);
  await nodes.reconcile(config.nodes);
  const routes = new RouteTable(config.models, config.nodes);
  const readiness = new ReadinessChecks();
  let http: GatewayHttpServer | undefined;
  const services: GatewayServices = {
    config,
    keys: new ConfigKeyRegistry(config.keys),
    models: modelsOf(config),
    router: new PoolRouter(routes, nodes),
    routes,
    nodes,
    readiness,
    shutdownHooks: new ShutdownHooks(),
    metrics: new GatewayMetrics({
      nodes: () => nodes.list(),
      readiness,
      requestsInFlight: () => http?.requestsInFlight() ?? 0,
      isKnownModel: (model) => services.models.has(model),
    }),
  };
  readiness.register(modelsRoutableCheck(services));
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
    const opsPort = await listen(opsServer, config.metrics.listen.port, config.metrics.listen.host).catch(async (error: unknown) => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await nodes.close();
      throw error;
    });
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
      services.keys = new ConfigKeyRegistry(next.keys);
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
