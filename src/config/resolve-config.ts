import { ConfigError } from './config-error.js';
import type { ConfigFile, NodeConfigFile } from './config-schema.js';
import { DEFAULT_HEALTH } from '../routing/node-health-settings.js';
import { DEFAULTS } from './defaults.js';
import type { GatewayConfig, KeyConfig, ModelConfig, NodeConfig, TimeoutSettings } from './gateway-config.js';

type TimeoutsFile = ConfigFile['timeouts'];

function resolveTimeouts(file: TimeoutsFile, base: TimeoutSettings): TimeoutSettings {
  return {
    connectMs: file?.connect_ms ?? base.connectMs,
    firstByteMs: file?.first_byte_ms ?? base.firstByteMs,
    idleMs: file?.idle_ms ?? base.idleMs,
    totalMs: file?.total_ms ?? base.totalMs,
  };
}

function requireUnique(source: string, section: string, ids: readonly string[]): void {
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) throw new ConfigError(source, `${section}[${index}].id`, `duplicate id "${id}"`);
    seen.add(id);
  });
}

/** Applies defaults to one schema-valid node entry; `path` names it in errors. */
export function resolveNode(node: NodeConfigFile, path: string, source: string, timeouts: TimeoutSettings): NodeConfig {
  if (node.provider !== 'simulated' && node.base_url === undefined) {
    throw new ConfigError(source, `${path}.base_url`, `is required for provider ${node.provider}`);
  }
  if (node.provider !== 'simulated' && node.simulated !== undefined) {
    throw new ConfigError(source, `${path}.simulated`, 'applies only to provider simulated');
  }
  const simulated = node.provider === 'simulated' ? node.simulated ?? {} : undefined;
  return {
    id: node.id,
    provider: node.provider,
    protocol: 'openai',
    baseUrl: (node.base_url ?? '').replace(/\/+$/, ''),
    apiKey: node.api_key,
    maxConcurrency: node.max_concurrency ?? DEFAULTS.maxConcurrency,
    weight: node.weight ?? DEFAULTS.weight,
    timeouts: resolveTimeouts(node.timeouts, timeouts),
    reasoningParam: node.reasoning_param ?? 'reasoning_effort',
    simulated: simulated && {
      firstByteMs: simulated.first_byte_ms ?? DEFAULTS.simulated.firstByteMs,
      tokensPerSecond: simulated.tokens_per_second ?? DEFAULTS.simulated.tokensPerSecond,
      reasoningField: simulated.reasoning_field ?? DEFAULTS.simulated.reasoningField,
      port: simulated.port ?? DEFAULTS.simulated.port,
    },
  };
}

/** Applies defaults and checks cross references of a schema-valid configuration file. */
export function resolveConfig(file: ConfigFile, source: string): GatewayConfig {
  const timeouts = resolveTimeouts(file.timeouts, DEFAULTS.timeouts);
  requireUnique(source, 'nodes', file.nodes.map((node) => node.id));
  requireUnique(source, 'models', file.models.map((model) => model.id));
  requireUnique(source, 'accounts', (file.accounts ?? []).map((account) => account.id));

  const nodes: NodeConfig[] = file.nodes.map((node, index) => resolveNode(node, `nodes[${index}]`, source, timeouts));
  const nodeIds = new Set(nodes.map((node) => node.id));

  const created = Math.floor(Date.now() / 1000);
  const models: ModelConfig[] = file.models.map((model, modelIndex) => ({
    id: model.id,
    ownedBy: model.owned_by ?? DEFAULTS.ownedBy,
    created,
    contextLength: model.context_length,
    maxOutputTokens: model.max_output_tokens,
    reasoning: model.reasoning && { defaultEffort: model.reasoning.default_effort },
    pricing: model.pricing && {
      input: model.pricing.input,
      output: model.pricing.output,
      cachedInput: model.pricing.cached_input,
      reasoning: model.pricing.reasoning,
    },
    routes: model.routes.map((route, routeIndex) => {
      if (!nodeIds.has(route.node)) {
        throw new ConfigError(source, `models[${modelIndex}].routes[${routeIndex}].node`, `unknown node "${route.node}"`);
      }
      return { nodeId: route.node, upstreamModel: route.model ?? model.id, weight: route.weight ?? DEFAULTS.weight, priority: route.priority ?? 0 };
    }),
  }));
  const modelIds = new Set(models.map((model) => model.id));

  const accounts = (file.accounts ?? []).map((account, index) => {
    account.allowed_models?.forEach((modelId, modelIndex) => {
      if (!modelIds.has(modelId)) {
        throw new ConfigError(source, `accounts[${index}].allowed_models[${modelIndex}]`, `unknown model "${modelId}"`);
      }
    });
    return { id: account.id, balance: account.balance ?? 0, allowedModels: account.allowed_models };
  });
  const accountIds = new Set(accounts.map((account) => account.id));

  const seenKeys = new Set<string>();
  const keys: KeyConfig[] = (file.keys ?? []).map((key, index) => {
    if (key.account !== undefined && !accountIds.has(key.account)) {
      throw new ConfigError(source, `keys[${index}].account`, `unknown account "${key.account}"`);
    }
    // Never echo the key itself: name the entry by position only.
    if (seenKeys.has(key.key)) throw new ConfigError(source, `keys[${index}].key`, 'the same key is declared twice');
    seenKeys.add(key.key);
    return {
      key: key.key,
      accountId: key.account,
      name: key.name,
      spendLimit: key.spend_limit,
      limits: key.limits && { rpm: key.limits.rpm, rps: key.limits.rps, tpm: key.limits.tpm },
      status: key.status ?? 'active',
    };
  });

  return {
    source,
    listen: { host: file.listen?.host ?? DEFAULTS.host, port: file.listen?.port ?? DEFAULTS.port },
    store: file.store ?? DEFAULTS.store,
    redis: file.redis,
    adminKey: file.admin_key,
    logLevel: file.log_level ?? DEFAULTS.logLevel,
    failover: {
      maxAttempts: file.failover?.max_attempts ?? DEFAULTS.maxAttempts,
      retryOnStatus: new Set(file.failover?.retry_on_status ?? DEFAULTS.retryOnStatus),
    },
    timeouts,
    health: {
      failureThreshold: file.health?.failure_threshold ?? DEFAULT_HEALTH.failureThreshold,
      baseEjectionMs: file.health?.base_ejection_ms ?? DEFAULT_HEALTH.baseEjectionMs,
      maxEjectionMs: file.health?.max_ejection_ms ?? DEFAULT_HEALTH.maxEjectionMs,
      probeIntervalMs: file.health?.probe_interval_ms ?? DEFAULT_HEALTH.probeIntervalMs,
      probePath: file.health?.probe_path ?? DEFAULT_HEALTH.probePath,
      probeTimeoutMs: file.health?.probe_timeout_ms ?? DEFAULT_HEALTH.probeTimeoutMs,
    },
    http: {
      bodyLimitBytes: file.http?.body_limit_bytes ?? DEFAULTS.bodyLimitBytes,
      sseKeepaliveMs: file.http?.sse_keepalive_ms ?? DEFAULTS.sseKeepaliveMs,
      headersTimeoutMs: file.http?.headers_timeout_ms ?? DEFAULTS.http.headersTimeoutMs,
      requestTimeoutMs: file.http?.request_timeout_ms ?? DEFAULTS.http.requestTimeoutMs,
      bodyIdleTimeoutMs: file.http?.body_idle_timeout_ms ?? DEFAULTS.http.bodyIdleTimeoutMs,
      keepAliveTimeoutMs: file.http?.keep_alive_timeout_ms ?? DEFAULTS.http.keepAliveTimeoutMs,
      maxConnections: file.http?.max_connections ?? DEFAULTS.http.maxConnections,
      listenBacklog: file.http?.listen_backlog ?? DEFAULTS.http.listenBacklog,
      maxMessages: file.http?.max_messages ?? DEFAULTS.http.maxMessages,
      maxChoices: file.http?.max_choices ?? DEFAULTS.http.maxChoices,
    },
    log: { bodies: file.log?.bodies ?? false, format: file.log?.format ?? 'auto' },
    metrics: {
      enabled: file.metrics?.enabled ?? true,
      listen: file.metrics?.listen && { host: file.metrics.listen.host ?? DEFAULTS.host, port: file.metrics.listen.port },
    },
    shutdown: { graceMs: file.shutdown?.grace_ms ?? DEFAULTS.shutdownGraceMs },
    nodes,
    models,
    accounts,
    keys,
  };
}
