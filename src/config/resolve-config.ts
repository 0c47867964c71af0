import type { ConfigFile } from './config-schema.js';
import { DEFAULTS } from './defaults.js';
import type { GatewayConfig } from './gateway-config.js';
import { refuseDocumentedSecrets } from './refuse-documented-secrets.js';
import { requireUniqueIds } from './require-unique-ids.js';
import { resolveAccounts } from './resolve-accounts.js';
import { resolveBudgetWindows } from './resolve-budget-windows.js';
import { resolveFailover } from './resolve-failover.js';
import { resolveHealth } from './resolve-health.js';
import { resolveHttp } from './resolve-http.js';
import { resolveKeys } from './resolve-keys.js';
import { resolveLimits } from './resolve-limits.js';
import { resolveMetrics } from './resolve-metrics.js';
import { resolveModels } from './resolve-models.js';
import { resolveNode } from './resolve-node.js';
import { resolveReplyLimits } from './resolve-reply-limits.js';
import { resolveRequestLog } from './resolve-request-log.js';
import { resolveStoredResponses } from './resolve-stored-responses.js';
import { resolveTelemetry } from './resolve-telemetry.js';
import { resolveTimeouts } from './resolve-timeouts.js';
import { resolveTrustedProxies } from './resolve-trusted-proxies.js';
import { resolveUsage } from './resolve-usage.js';

/**
 * Applies defaults and checks cross references of a schema-valid configuration file. Each
 * section is resolved by its own function; the order below is the order problems are reported.
 */
export function resolveConfig(file: ConfigFile, source: string, demo = false): GatewayConfig {
  refuseDocumentedSecrets(file, source, demo);
  const timeouts = resolveTimeouts(file.timeouts, DEFAULTS.timeouts);
  const http = resolveHttp(file.http, source);
  requireUniqueIds(
    source,
    'nodes',
    file.nodes.map((node) => node.id),
  );
  requireUniqueIds(
    source,
    'models',
    file.models.map((model) => model.id),
  );
  requireUniqueIds(
    source,
    'accounts',
    (file.accounts ?? []).map((account) => account.id),
  );

  const nodeReplies = resolveReplyLimits(file.node_replies, DEFAULTS.nodeReplies);
  const nodes = file.nodes.map((node, index) => resolveNode(node, `nodes[${index}]`, source, timeouts, nodeReplies));
  const models = resolveModels(file.models, new Map(nodes.map((node) => [node.id, node])), source);
  const modelIds = new Set(models.map((model) => model.id));
  const accounts = resolveAccounts(file.accounts, modelIds, source);
  const keys = resolveKeys(file.keys, modelIds, new Set(accounts.map((account) => account.id)), source);

  const store = file.store ?? DEFAULTS.store;
  return {
    source,
    listen: { host: file.listen?.host ?? DEFAULTS.host, port: file.listen?.port ?? DEFAULTS.port },
    store,
    usage: resolveUsage(file.usage, store),
    requestLog: resolveRequestLog(file.request_log, models),
    responses: resolveStoredResponses(file.responses),
    redis: file.redis,
    limits: resolveLimits(file.limits),
    trustedProxies: resolveTrustedProxies(file.trusted_proxies, source),
    adminKey: file.admin_key,
    console: {
      sessionTtlSeconds: file.console?.session_ttl_seconds ?? DEFAULTS.consoleSessionTtlSeconds,
      traceUrl: file.console?.trace_url,
    },
    logLevel: file.log_level ?? DEFAULTS.logLevel,
    failover: resolveFailover(file.failover),
    timeouts,
    nodeReplies,
    health: resolveHealth(file.health),
    http,
    log: { bodies: file.log?.bodies ?? false, format: file.log?.format ?? 'auto' },
    metrics: resolveMetrics(file.metrics),
    telemetry: resolveTelemetry(file.telemetry),
    shutdown: { graceMs: file.shutdown?.grace_ms ?? DEFAULTS.shutdownGraceMs },
    budgetWindows: resolveBudgetWindows(file, source),
    nodes,
    models,
    accounts,
    keys,
  };
}
