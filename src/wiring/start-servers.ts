import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { GatewayServices } from '../gateway-services.js';
import { createOpsServer } from '../http/ops-server.js';
import { createGatewayServer, type GatewayHttpServer } from '../http/server.js';
import type { Logger } from '../observability/logger.js';

/** The client-facing server and, with `metrics.listen`, the separate metrics server, both listening. */
export interface Servers {
  readonly http: GatewayHttpServer;
  readonly port: number;
  /** The OpenAI base URL clients use, e.g. http://127.0.0.1:8080/v1. */
  readonly baseUrl: string;
  /** The separate metrics address, once listening. */
  readonly metricsUrl: string | undefined;
  /** Stops the metrics server, when there is one. */
  closeOps(): Promise<void>;
}

/** Starts listening; when the metrics address cannot be taken, the client server is closed again and the error thrown. */
export async function startServers(
  services: GatewayServices,
  config: GatewayConfig,
  logger: Logger,
  port = config.listen.port,
): Promise<Servers> {
  const http = createGatewayServer(services, logger);
  const { server } = http;
  const listening = await listen(server, port, config.listen.host, config.http.listenBacklog);
  let opsServer: Server | undefined;
  let metricsUrl: string | undefined;
  if (config.metrics.enabled && config.metrics.listen !== undefined) {
    opsServer = createOpsServer(services, () => http.isShuttingDown());
    const opsPort = await listen(opsServer, config.metrics.listen.port, config.metrics.listen.host).catch(
      async (error: unknown) => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await services.nodes.close();
        throw error;
      },
    );
    metricsUrl = `http://${urlHost(config.metrics.listen.host)}:${opsPort}/metrics`;
  }
  const ops = opsServer;
  return {
    http,
    port: listening,
    baseUrl: `http://${urlHost(config.listen.host)}:${listening}/v1`,
    metricsUrl,
    closeOps: async () => {
      if (ops === undefined) return;
      await new Promise<void>((resolve) => {
        ops.close(() => resolve());
        ops.closeAllConnections();
      });
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
