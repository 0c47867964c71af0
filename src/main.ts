import type { AddressInfo } from 'node:net';
import { ConfigKeyRegistry } from './auth/key-registry.js';
import type { GatewayConfig, NodeConfig } from './config/gateway-config.js';
import type { GatewayServices } from './gateway-services.js';
import { createGatewayServer } from './http/server.js';
import { createLogger, type Logger } from './observability/logger.js';
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
  /** Stops accepting, closes node pools and simulated nodes. */
  close(): Promise<void>;
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
    protocol: node.protocol,
  });
  const baseUrl = await simulator.listen(node.simulated.port, '127.0.0.1');
  return { node: { ...node, baseUrl }, stop: () => simulator.close() };
};

function modelsOf(config: GatewayConfig) {
  return new Map(config.models.map((model) => [model.id, model]));
}

/** Wiring only: node registry → router → HTTP server, plus reload and health probes. */
export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const nodes = new NodeRegistry(launchNode, config.health);
  await nodes.reconcile(config.nodes);
  const routes = new RouteTable(config.models, config.nodes);
  const services: GatewayServices = {
    config,
    keys: new ConfigKeyRegistry(config.keys),
    models: modelsOf(config),
    router: new PoolRouter(routes, nodes),
    routes,
    nodes,
  };
  const prober = new HealthProber(nodes, () => services.config.health, logger);
  prober.start();
  const server = createGatewayServer(services, logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.listen.port, config.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;
  return {
    baseUrl: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/v1`,
    port,
    logger,
    services,
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
    async close() {
      prober.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await nodes.close();
    },
  };
}
