import type { AddressInfo } from 'node:net';
import { ConfigKeyRegistry } from './auth/key-registry.js';
import type { GatewayConfig, NodeConfig } from './config/gateway-config.js';
import type { GatewayServices } from './gateway-services.js';
import { createGatewayServer } from './http/server.js';
import { createLogger, type Logger } from './observability/logger.js';
import { ConfiguredOrderRouter } from './routing/router.js';
import { SimulatedNode } from './simulator/simulated-node.js';
import { NodeClient } from './upstream/node-client.js';

/** A running gateway. */
export interface RunningGateway {
  /** The OpenAI base URL clients use, e.g. http://127.0.0.1:8080/v1. */
  readonly baseUrl: string;
  readonly port: number;
  readonly logger: Logger;
  /** Stops accepting, closes node pools and simulated nodes. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Overrides the configured listen port (0 = any free port; tests use it). */
  readonly port?: number;
  readonly logger?: Logger;
}

/** Wiring only: simulated nodes → node pools → router → HTTP server. */
export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const simulatedNodes: SimulatedNode[] = [];
  const nodes: NodeConfig[] = [];
  for (const node of config.nodes) {
    if (node.simulated === undefined) {
      nodes.push(node);
      continue;
    }
    const simulator = new SimulatedNode({
      firstByteMs: node.simulated.firstByteMs,
      tokensPerSecond: node.simulated.tokensPerSecond,
      reasoningField: node.simulated.reasoningField,
    });
    simulatedNodes.push(simulator);
    nodes.push({ ...node, baseUrl: await simulator.listen(node.simulated.port, '127.0.0.1') });
  }
  const clients = new Map(nodes.map((node) => [node.id, new NodeClient(node)]));
  const services: GatewayServices = {
    config,
    keys: new ConfigKeyRegistry(config.keys),
    models: new Map(config.models.map((model) => [model.id, model])),
    router: new ConfiguredOrderRouter(config.models, clients),
  };
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
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all([...clients.values()].map((client) => client.close()));
      await Promise.all(simulatedNodes.map((simulator) => simulator.close()));
    },
  };
}
