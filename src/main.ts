import type { AddressInfo } from 'node:net';
import { AccountCache } from './billing/account-cache.js';
import { applyConfigToStore } from './billing/apply-config.js';
import { Billing } from './billing/billing.js';
import { loadTokenCounter } from './billing/token-counter.js';
import type { GatewayConfig, NodeConfig } from './config/gateway-config.js';
import type { GatewayServices } from './gateway-services.js';
import { createGatewayServer } from './http/server.js';
import { createLogger, type Logger } from './observability/logger.js';
import { HealthProber } from './routing/health-prober.js';
import { NodeRegistry, type NodeLauncher } from './routing/node-registry.js';
import { PoolRouter } from './routing/pool-router.js';
import { RouteTable } from './routing/route-table.js';
import { SimulatedNode } from './simulator/simulated-node.js';
import { openStore, parseStoreLocation } from './store/open-store.js';
import { UsageJournal } from './usage/usage-journal.js';
import { createRateLimiter } from './limits/rate-limiter.js';
import { trustedProxyList } from './limits/client-ip.js';
import { UsageLedger } from './usage/usage-ledger.js';

/** A running gateway. */
export interface RunningGateway {
  /** The OpenAI base URL clients use, e.g. http://127.0.0.1:8080/v1. */
  readonly baseUrl: string;
  readonly port: number;
  readonly logger: Logger;
  readonly services: GatewayServices;
  /** Applies a new configuration without dropping in-flight requests (listen address excepted). */
  reload(config: GatewayConfig): Promise<void>;
  /** Stops accepting, writes the usage rows still waiting, closes node pools, simulated nodes and the store. */
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

/** Wiring only: store → caches → node registry → router → HTTP server, plus reload and health probes. */
export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // The tokenizer's tables take ~0.4 s of synchronous loading: done before listening, and
  // only when a paid model needs estimates, so it never stalls requests in flight.
  if (config.models.some((model) => model.pricing !== undefined)) await loadTokenCounter();
  const store = await openStore(parseStoreLocation(config.store));
  const accounts = new AccountCache(store);
  const journal = config.usage.journalDir === undefined ? undefined : new UsageJournal(config.usage.journalDir);
  const usage = new UsageLedger(store, accounts, journal, logger, config.usage);
  await usage.replayJournal();
  await applyConfigToStore(store, config);
  await accounts.load();
  const limiter = createRateLimiter({ settings: config.limits, redisUrl: config.redis, logger });
  await limiter.start();
  const nodes = new NodeRegistry(launchNode, config.health);
  await nodes.reconcile(config.nodes);
  const routes = new RouteTable(config.models, config.nodes);
  const services: GatewayServices = {
    config,
    models: modelsOf(config),
    router: new PoolRouter(routes, nodes),
    routes,
    nodes,
    store,
    accounts,
    billing: new Billing(accounts, usage),
    usage,
    limiter,
    trustedProxies: trustedProxyList(config.trustedProxies),
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
      if (next.models.some((model) => model.pricing !== undefined)) await loadTokenCounter();
      await applyConfigToStore(store, next);
      await accounts.load();
      if (JSON.stringify([next.limits, next.redis]) !== JSON.stringify([services.config.limits, services.config.redis])) {
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
    async close() {
      prober.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await usage.close();
      await services.limiter.close();
      await nodes.close();
      await store.close();
    },
  };
}
