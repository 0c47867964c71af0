import { ModelAliasConflict, ModelCatalog } from './model-catalog.js';
import { ConfigError } from './config-error.js';
import type { BudgetsFile, ConfigFile, NodeConfigFile, RateLimitsFile } from './config-schema.js';
import { addressRangeProblem } from './ip-address.js';
import { reasoningProblem } from './protocol-reasoning.js';
import { DEFAULT_HEALTH } from './node-health-settings.js';
import { DEFAULTS } from './defaults.js';
import { resolvePricedFeatures, resolvePricing } from './resolve-priced-features.js';
import { isDocumentedSecret } from './example-secrets.js';
import { parseIsoTime } from './iso-time.js';
import { compileSimulatorScripts, ScriptError, type SimulatorScriptsFile } from './simulator-scripts.js';
import { CORE_EFFORTS, REASONING_EFFORTS, type ReasoningEffort } from './reasoning-efforts.js';
import { DEFAULT_ANTHROPIC_VERSION, DEFAULT_BASE_URLS, type WireProtocol } from './wire-protocols.js';
import { isTimeZone } from './time-zone.js';
import type {
  BudgetConfig,
  GatewayConfig,
  KeyConfig,
  LimitSettings,
  ModelConfig,
  ModelReasoningSettings,
  NativeApi,
  NodeConfig,
  NodeReplyLimits,
  PolicyConfig,
  RateLimitSettings,
  TimeoutSettings,
} from './gateway-config.js';

type ModelReasoningFile = NonNullable<ConfigFile['models'][number]['reasoning']>;

/**
 * Reasoning settings with defaults: the efforts beyond low/medium/high the model takes, the
 * default among them, and budgets that must not fall as effort rises (over the efforts taken).
 */
function resolveReasoning(file: ModelReasoningFile, path: string, source: string): ModelReasoningSettings {
  const budgets = { ...DEFAULTS.reasoning.budgets, ...file.budgets };
  const efforts = new Set((file.efforts ?? []).filter((effort) => !CORE_EFFORTS.has(effort)));
  const taken = REASONING_EFFORTS.filter((effort) => CORE_EFFORTS.has(effort) || efforts.has(effort));
  if (!taken.includes(file.default_effort)) {
    throw new ConfigError(
      source,
      `${path}.default_effort`,
      `"${file.default_effort}" is not one of the model's efforts (${taken.join(', ')}); list it in ${path}.efforts`,
    );
  }
  for (let index = 1; index < taken.length; index++) {
    const lower = taken[index - 1] as ReasoningEffort;
    const higher = taken[index] as ReasoningEffort;
    if (budgets[lower] > budgets[higher]) {
      throw new ConfigError(
        source,
        `${path}.budgets`,
        `must not fall as effort rises (${taken.map((effort) => `${effort} ${budgets[effort]}`).join(', ')})`,
      );
    }
  }
  return {
    defaultEffort: file.default_effort,
    efforts,
    style: file.style ?? 'budget',
    budgets,
    levels: { ...DEFAULTS.reasoning.levels, ...file.levels } as ModelReasoningSettings['levels'],
    ...(file.answer_tokens === undefined ? {} : { answerTokens: file.answer_tokens }),
  };
}

type TimeoutsFile = ConfigFile['timeouts'];

function resolveTimeouts(file: TimeoutsFile, base: TimeoutSettings): TimeoutSettings {
  return {
    connectMs: file?.connect_ms ?? base.connectMs,
    firstByteMs: file?.first_byte_ms ?? base.firstByteMs,
    idleMs: file?.idle_ms ?? base.idleMs,
    totalMs: file?.total_ms ?? base.totalMs,
    minTokensPerSecond: file?.min_tokens_per_second ?? base.minTokensPerSecond,
  };
}

function requireUnique(source: string, section: string, ids: readonly string[]): void {
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) throw new ConfigError(source, `${section}[${index}].id`, `duplicate id "${id}"`);
    seen.add(id);
  });
}

function resolveRateLimits(file: RateLimitsFile, base?: RateLimitSettings): RateLimitSettings {
  return { rpm: file.rpm ?? base?.rpm, rps: file.rps ?? base?.rps, tpm: file.tpm ?? base?.tpm };
}

function resolveLimits(file: ConfigFile['limits']): LimitSettings {
  return {
    key: resolveRateLimits(file?.key ?? {}, DEFAULTS.limits.key),
    account: resolveRateLimits(file?.account ?? {}, DEFAULTS.limits.account),
    ip: resolveRateLimits(file?.ip ?? {}, DEFAULTS.limits.ip),
    authFailuresPerMinute: file?.auth_failures_per_minute ?? DEFAULTS.limits.authFailuresPerMinute,
    countTokensPerMinute: file?.count_tokens_per_minute ?? DEFAULTS.limits.countTokensPerMinute,
  };
}

function resolveTrustedProxies(entries: readonly string[] | undefined, source: string): readonly string[] {
  (entries ?? []).forEach((entry, index) => {
    const problem = addressRangeProblem(entry);
    if (problem !== undefined) throw new ConfigError(source, `trusted_proxies[${index}]`, problem);
  });
  return entries ?? [];
}

function resolveReplyLimits(replies: ConfigFile['node_replies'], defaults: NodeReplyLimits): NodeReplyLimits {
  return {
    maxJsonBytes: replies?.max_json_bytes ?? defaults.maxJsonBytes,
    maxEventBytes: replies?.max_event_bytes ?? defaults.maxEventBytes,
  };
}

/** API keys and the admin key printed in the documentation are no secrets: refused (the demo keeps its own). */
function refuseDocumentedSecrets(file: ConfigFile, source: string, demo: boolean): void {
  const problem =
    'is an example printed in the documentation, known to anyone: use a secret of your own (e.g. openssl rand -base64 32)';
  if (file.admin_key !== undefined && isDocumentedSecret(file.admin_key, demo)) {
    throw new ConfigError(source, 'admin_key', problem);
  }
  // Never echo the key itself: name the entry by position only.
  (file.keys ?? []).forEach((key, index) => {
    if (isDocumentedSecret(key.key, demo)) throw new ConfigError(source, `keys[${index}].key`, problem);
  });
}

/** Applies defaults to one schema-valid node entry; `path` names it in errors. */
export function resolveNode(
  node: NodeConfigFile,
  path: string,
  source: string,
  timeouts: TimeoutSettings,
  replies: NodeReplyLimits = DEFAULTS.nodeReplies,
): NodeConfig {
  const defaultBaseUrl = node.provider === 'simulated' ? undefined : DEFAULT_BASE_URLS[node.provider];
  if (node.provider !== 'simulated' && node.base_url === undefined && defaultBaseUrl === undefined) {
    throw new ConfigError(source, `${path}.base_url`, `is required for provider ${node.provider}`);
  }
  if (node.provider !== 'simulated' && node.simulated !== undefined) {
    throw new ConfigError(source, `${path}.simulated`, 'applies only to provider simulated');
  }
  const simulated = node.provider === 'simulated' ? (node.simulated ?? {}) : undefined;
  const protocol = node.provider === 'simulated' ? (simulated?.protocol ?? 'openai') : node.provider;
  if (node.reasoning_param !== undefined && protocol !== 'openai') {
    throw new ConfigError(source, `${path}.reasoning_param`, 'applies only to OpenAI-protocol nodes');
  }
  if (node.max_tokens_field !== undefined && protocol !== 'openai') {
    throw new ConfigError(source, `${path}.max_tokens_field`, 'applies only to OpenAI-protocol nodes');
  }
  if (node.apis !== undefined && protocol !== 'openai') {
    throw new ConfigError(source, `${path}.apis`, 'applies only to OpenAI-protocol nodes');
  }
  if (node.anthropic_version !== undefined && protocol !== 'anthropic') {
    throw new ConfigError(source, `${path}.anthropic_version`, 'applies only to Anthropic-protocol nodes');
  }
  if (node.apis !== undefined && !node.apis.includes('chat')) {
    throw new ConfigError(source, `${path}.apis`, 'must include chat: every node serves Chat Completions');
  }
  return {
    id: node.id,
    provider: node.provider,
    protocol,
    baseUrl: (node.base_url ?? defaultBaseUrl ?? '').replace(/\/+$/, ''),
    apiKey: node.api_key,
    maxConcurrency: node.max_concurrency ?? DEFAULTS.maxConcurrency,
    weight: node.weight ?? DEFAULTS.weight,
    timeouts: resolveTimeouts(node.timeouts, timeouts),
    replies: resolveReplyLimits(node.replies, replies),
    reasoningParam: node.reasoning_param ?? 'reasoning_effort',
    maxTokensField: node.max_tokens_field ?? 'max_tokens',
    nativeApis: nativeApisOf(protocol, node.apis),
    anthropicVersion: node.anthropic_version ?? DEFAULT_ANTHROPIC_VERSION,
    simulated: simulated && {
      firstByteMs: simulated.first_byte_ms ?? DEFAULTS.simulated.firstByteMs,
      tokensPerSecond: simulated.tokens_per_second ?? DEFAULTS.simulated.tokensPerSecond,
      reasoningField: simulated.reasoning_field ?? DEFAULTS.simulated.reasoningField,
      port: simulated.port ?? DEFAULTS.simulated.port,
      scripts: resolveScripts(simulated.scripts, path, source),
      prefixCache: simulated.prefix_cache && {
        capacityTokens: simulated.prefix_cache.capacity_tokens,
        blockTokens: simulated.prefix_cache.block_tokens ?? DEFAULTS.simulated.blockTokens,
      },
      prefillMsPerToken: simulated.prefill_ms_per_token ?? DEFAULTS.simulated.prefillMsPerToken,
      maxNumSeqs: simulated.max_num_seqs,
    },
    ...(node.load_metrics === undefined
      ? {}
      : {
          loadMetrics: {
            url: node.load_metrics.url,
            intervalMs: node.load_metrics.interval_ms ?? DEFAULTS.loadMetrics.intervalMs,
            timeoutMs: node.load_metrics.timeout_ms ?? DEFAULTS.loadMetrics.timeoutMs,
            maxBytes: node.load_metrics.max_bytes ?? DEFAULTS.loadMetrics.maxBytes,
          },
        }),
  };
}

/** Checks a simulated node's scripts at load (regular expressions, rule shape, placeholders). */
function resolveScripts(scripts: SimulatorScriptsFile | undefined, path: string, source: string): SimulatorScriptsFile {
  try {
    compileSimulatorScripts(scripts ?? {});
  } catch (error) {
    if (error instanceof ScriptError)
      throw new ConfigError(source, `${path}.simulated.scripts.${error.path}`, error.problem);
    throw error;
  }
  return scripts ?? {};
}

type PolicyFile = NonNullable<ConfigFile['accounts']>[number]['policy'];

function resolvePolicy(policy: PolicyFile): PolicyConfig | undefined {
  return policy && { streaming: policy.streaming, maxReasoningEffort: policy.max_reasoning_effort };
}

function resolveTimeZone(zone: string | undefined, source: string): string {
  if (zone === undefined) return DEFAULTS.budgetTimezone;
  if (!isTimeZone(zone))
    throw new ConfigError(
      source,
      'budget_timezone',
      `unknown time zone "${zone}": give an IANA name such as "Europe/Berlin" or "UTC"`,
    );
  return zone;
}

/** Budgets as given; one per period (two monthly budgets of one owner would be one budget, the lower). */
function resolveBudgets(budgets: BudgetsFile | undefined, path: string, source: string): BudgetConfig[] | undefined {
  if (budgets === undefined) return undefined;
  const seen = new Set<string>();
  budgets.forEach((budget, index) => {
    if (seen.has(budget.period))
      throw new ConfigError(
        source,
        `${path}[${index}].period`,
        `a second "${budget.period}" budget: give one per period`,
      );
    seen.add(budget.period);
  });
  return budgets.map((budget) => ({ limit: budget.limit, period: budget.period }));
}

/** A body of the largest size allowed must fit one key's budget, and one key's budget the total. */
function checkBodyBudgets(http: ConfigFile['http'], source: string): void {
  const bodyLimit = http?.body_limit_bytes ?? DEFAULTS.bodyLimitBytes;
  const perKey = http?.max_body_bytes_in_flight_per_key ?? DEFAULTS.http.maxBodyBytesInFlightPerKey;
  const total = http?.max_body_bytes_in_flight ?? DEFAULTS.http.maxBodyBytesInFlight;
  if (perKey < bodyLimit)
    throw new ConfigError(
      source,
      'http.max_body_bytes_in_flight_per_key',
      `must be at least http.body_limit_bytes (${bodyLimit})`,
    );
  if (total < perKey)
    throw new ConfigError(
      source,
      'http.max_body_bytes_in_flight',
      `must be at least http.max_body_bytes_in_flight_per_key (${perKey})`,
    );
  const perAccount = http?.max_body_bytes_in_flight_per_account ?? DEFAULTS.http.maxBodyBytesInFlightPerAccount;
  const perIp = http?.max_body_bytes_in_flight_per_ip ?? DEFAULTS.http.maxBodyBytesInFlightPerIp;
  for (const [knob, value] of [
    ['max_body_bytes_in_flight_per_account', perAccount],
    ['max_body_bytes_in_flight_per_ip', perIp],
  ] as const) {
    if (value < bodyLimit) {
      throw new ConfigError(source, `http.${knob}`, `must be at least http.body_limit_bytes (${bodyLimit})`);
    }
  }
}

/** Applies defaults and checks cross references of a schema-valid configuration file. */
export function resolveConfig(file: ConfigFile, source: string, demo = false): GatewayConfig {
  refuseDocumentedSecrets(file, source, demo);
  const timeouts = resolveTimeouts(file.timeouts, DEFAULTS.timeouts);
  checkBodyBudgets(file.http, source);
  requireUnique(
    source,
    'nodes',
    file.nodes.map((node) => node.id),
  );
  requireUnique(
    source,
    'models',
    file.models.map((model) => model.id),
  );
  requireUnique(
    source,
    'accounts',
    (file.accounts ?? []).map((account) => account.id),
  );

  const nodeReplies = resolveReplyLimits(file.node_replies, DEFAULTS.nodeReplies);
  const nodes: NodeConfig[] = file.nodes.map((node, index) =>
    resolveNode(node, `nodes[${index}]`, source, timeouts, nodeReplies),
  );
  const nodesById = new Map(nodes.map((node) => [node.id, node]));

  const created = Math.floor(Date.now() / 1000);
  const models: ModelConfig[] = file.models.map((model, modelIndex) => {
    const resolved: ModelConfig = {
      id: model.id,
      ...(model.aliases === undefined ? {} : { aliases: model.aliases }),
      ownedBy: model.owned_by ?? DEFAULTS.ownedBy,
      created,
      contextLength: model.context_length,
      maxOutputTokens: model.max_output_tokens,
      defaultMaxTokens: model.default_max_tokens,
      unresolvedInputTokens: model.unresolved_input_tokens,
      reasoning: model.reasoning && resolveReasoning(model.reasoning, `models[${modelIndex}].reasoning`, source),
      pricing: model.pricing && resolvePricing(model.pricing),
      ...(model.priced_features === undefined ? {} : { pricedFeatures: resolvePricedFeatures(model.priced_features) }),
      ...(model.request_log?.bodies === true ? { requestLogBodies: true } : {}),
      routing: {
        affinity: model.routing?.affinity ?? DEFAULTS.routing.affinity,
        affinityLoadFactor: model.routing?.affinity_load_factor ?? DEFAULTS.routing.affinityLoadFactor,
      },
      routes: model.routes.map((route, routeIndex) => {
        if (!nodesById.has(route.node)) {
          throw new ConfigError(
            source,
            `models[${modelIndex}].routes[${routeIndex}].node`,
            `unknown node "${route.node}"`,
          );
        }
        return {
          nodeId: route.node,
          upstreamModel: route.model ?? model.id,
          weight: route.weight ?? DEFAULTS.weight,
          priority: route.priority ?? 0,
        };
      }),
    };
    // Each protocol the model is routed to checks what it can express (levels, budgets…).
    for (const route of resolved.routes) {
      const node = nodesById.get(route.nodeId) as NodeConfig;
      const problem = reasoningProblem(node.protocol, resolved);
      if (problem !== undefined) {
        throw new ConfigError(
          source,
          `models[${modelIndex}].${problem.path}`,
          `${problem.problem} (node "${node.id}" speaks ${node.protocol})`,
        );
      }
    }
    return resolved;
  });
  checkModelAliases(models, source);
  const modelIds = new Set(models.map((model) => model.id));

  const accounts = (file.accounts ?? []).map((account, index) => {
    account.allowed_models?.forEach((modelId, modelIndex) => {
      if (!modelIds.has(modelId)) {
        throw new ConfigError(source, `accounts[${index}].allowed_models[${modelIndex}]`, `unknown model "${modelId}"`);
      }
    });
    return {
      id: account.id,
      name: account.name,
      balance: account.balance ?? 0,
      allowedModels: account.allowed_models,
      limits: account.limits && resolveRateLimits(account.limits),
      policy: resolvePolicy(account.policy),
      ...(account.request_log?.bodies === true ? { requestLogBodies: true } : {}),
      budgets: resolveBudgets(account.budgets, `accounts[${index}].budgets`, source),
    };
  });
  const accountIds = new Set(accounts.map((account) => account.id));

  const seenKeys = new Set<string>();
  const keys: KeyConfig[] = (file.keys ?? []).map((key, index) => {
    key.allowed_models?.forEach((modelId, modelIndex) => {
      if (!modelIds.has(modelId))
        throw new ConfigError(source, `keys[${index}].allowed_models[${modelIndex}]`, `unknown model "${modelId}"`);
    });
    if (key.account !== undefined && !accountIds.has(key.account)) {
      throw new ConfigError(source, `keys[${index}].account`, `unknown account "${key.account}"`);
    }
    // Never echo the key itself: name the entry by position only.
    if (seenKeys.has(key.key)) throw new ConfigError(source, `keys[${index}].key`, 'the same key is declared twice');
    seenKeys.add(key.key);
    const expiresAt = key.expires_at === undefined ? undefined : parseIsoTime(key.expires_at);
    if (key.expires_at !== undefined && expiresAt === undefined) {
      throw new ConfigError(
        source,
        `keys[${index}].expires_at`,
        'must be an ISO 8601 time with a zone, such as "2027-01-31T00:00:00Z"',
      );
    }
    return {
      key: key.key,
      accountId: key.account,
      name: key.name,
      spendLimit: key.spend_limit,
      limits: key.limits && resolveRateLimits(key.limits),
      allowedModels: key.allowed_models,
      policy: resolvePolicy(key.policy),
      budgets: resolveBudgets(key.budgets, `keys[${index}].budgets`, source),
      endUserBudgets: resolveBudgets(key.end_user_budgets, `keys[${index}].end_user_budgets`, source),
      status: key.status ?? 'active',
      ...(key.request_log?.bodies === true ? { requestLogBodies: true } : {}),
      expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt).toISOString(),
    };
  });

  const store = file.store ?? DEFAULTS.store;
  return {
    source,
    listen: { host: file.listen?.host ?? DEFAULTS.host, port: file.listen?.port ?? DEFAULTS.port },
    store,
    usage: {
      journalDir: store === 'memory' ? undefined : (file.usage?.journal_dir ?? DEFAULTS.usageJournalDir),
      flushIntervalMs: file.usage?.flush_interval_ms ?? DEFAULTS.usageFlushIntervalMs,
      maxBatchRows: file.usage?.max_batch_rows ?? DEFAULTS.usageMaxBatchRows,
      maxWaitingRows: file.usage?.max_waiting_rows ?? DEFAULTS.usageMaxWaitingRows,
      streamProgressIntervalMs: file.usage?.stream_progress_interval_ms ?? DEFAULTS.usageStreamProgressIntervalMs,
    },
    requestLog: {
      enabled: file.request_log?.enabled ?? DEFAULTS.requestLog.enabled,
      retentionDays: file.request_log?.retention_days ?? DEFAULTS.requestLog.retentionDays,
      maxRows: file.request_log?.max_rows ?? DEFAULTS.requestLog.maxRows,
      bodyRetentionDays: file.request_log?.body_retention_days ?? DEFAULTS.requestLog.bodyRetentionDays,
      maxBodyBytes: file.request_log?.max_body_bytes ?? DEFAULTS.requestLog.maxBodyBytes,
      flushIntervalMs: file.request_log?.flush_interval_ms ?? DEFAULTS.requestLog.flushIntervalMs,
      maxBatchRows: file.request_log?.max_batch_rows ?? DEFAULTS.requestLog.maxBatchRows,
      maxQueueRows: file.request_log?.max_queue_rows ?? DEFAULTS.requestLog.maxQueueRows,
      writeTimeoutMs: file.request_log?.write_timeout_ms ?? DEFAULTS.requestLog.writeTimeoutMs,
      purgeIntervalMs: file.request_log?.purge_interval_ms ?? DEFAULTS.requestLog.purgeIntervalMs,
      maxUnauthenticatedAddresses:
        file.request_log?.max_unauthenticated_addresses ?? DEFAULTS.requestLog.maxUnauthenticatedAddresses,
      someModelKeepsBodies: models.some((model) => model.requestLogBodies === true),
    },
    responses: {
      retentionDays: file.responses?.retention_days ?? DEFAULTS.responses.retentionDays,
      maxStoredBytes: file.responses?.max_stored_bytes ?? DEFAULTS.responses.maxStoredBytes,
      maxStoredResponsesPerAccount:
        file.responses?.max_stored_responses_per_account ?? DEFAULTS.responses.maxStoredResponsesPerAccount,
      maxStoredBytesPerAccount:
        file.responses?.max_stored_bytes_per_account ?? DEFAULTS.responses.maxStoredBytesPerAccount,
      maxConversationResponses:
        file.responses?.max_conversation_responses ?? DEFAULTS.responses.maxConversationResponses,
      maxConversationBytes: file.responses?.max_conversation_bytes ?? DEFAULTS.responses.maxConversationBytes,
    },
    redis: file.redis,
    limits: resolveLimits(file.limits),
    trustedProxies: resolveTrustedProxies(file.trusted_proxies, source),
    adminKey: file.admin_key,
    console: {
      sessionTtlSeconds: file.console?.session_ttl_seconds ?? DEFAULTS.consoleSessionTtlSeconds,
      traceUrl: file.console?.trace_url,
    },
    logLevel: file.log_level ?? DEFAULTS.logLevel,
    failover: {
      maxAttempts: file.failover?.max_attempts ?? DEFAULTS.maxAttempts,
      retryOnStatus: new Set(file.failover?.retry_on_status ?? DEFAULTS.retryOnStatus),
      maxRetryAfterSeconds: file.failover?.max_retry_after_seconds ?? DEFAULTS.maxRetryAfterSeconds,
    },
    timeouts,
    nodeReplies,
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
      maxJsonDepth: file.http?.max_json_depth ?? DEFAULTS.http.maxJsonDepth,
      maxBodyBytesInFlight: file.http?.max_body_bytes_in_flight ?? DEFAULTS.http.maxBodyBytesInFlight,
      maxBodyBytesInFlightPerKey:
        file.http?.max_body_bytes_in_flight_per_key ?? DEFAULTS.http.maxBodyBytesInFlightPerKey,
      maxBodyBytesInFlightPerAccount:
        file.http?.max_body_bytes_in_flight_per_account ?? DEFAULTS.http.maxBodyBytesInFlightPerAccount,
      maxBodyBytesInFlightPerIp: file.http?.max_body_bytes_in_flight_per_ip ?? DEFAULTS.http.maxBodyBytesInFlightPerIp,
      maxDrainBytes: file.http?.max_drain_bytes ?? DEFAULTS.http.maxDrainBytes,
      drainTimeoutMs: file.http?.drain_timeout_ms ?? DEFAULTS.http.drainTimeoutMs,
    },
    log: { bodies: file.log?.bodies ?? false, format: file.log?.format ?? 'auto' },
    metrics: {
      enabled: file.metrics?.enabled ?? true,
      listen: file.metrics?.listen && {
        host: file.metrics.listen.host ?? DEFAULTS.host,
        port: file.metrics.listen.port,
      },
    },
    telemetry: {
      endpoint: tracesUrl(file.telemetry?.otlp?.endpoint),
      headers: file.telemetry?.otlp?.headers ?? {},
      timeoutMs: file.telemetry?.otlp?.timeout_ms ?? DEFAULTS.telemetry.timeoutMs,
      serviceName: file.telemetry?.service_name ?? DEFAULTS.telemetry.serviceName,
      sampleRatio: file.telemetry?.sample_ratio ?? 1,
      captureContent: file.telemetry?.capture_content ?? false,
      maxContentChars: file.telemetry?.max_content_chars ?? DEFAULTS.telemetry.maxContentChars,
      maxQueueSpans: file.telemetry?.max_queue_spans ?? DEFAULTS.telemetry.maxQueueSpans,
      batchSpans: Math.min(
        file.telemetry?.batch_spans ?? DEFAULTS.telemetry.batchSpans,
        file.telemetry?.max_queue_spans ?? DEFAULTS.telemetry.maxQueueSpans,
      ),
      batchIntervalMs: file.telemetry?.batch_interval_ms ?? DEFAULTS.telemetry.batchIntervalMs,
    },
    shutdown: { graceMs: file.shutdown?.grace_ms ?? DEFAULTS.shutdownGraceMs },
    budgetWindows: {
      timeZone: resolveTimeZone(file.budget_timezone, source),
      cachedWindows: file.budget_cached_windows ?? DEFAULTS.budgetCachedWindows,
    },
    nodes,
    models,
    accounts,
    keys,
  };
}

/** The APIs a node serves natively besides Chat Completions (NodeConfig.nativeApis). */
function nativeApisOf(
  protocol: WireProtocol,
  apis: readonly ('chat' | 'responses')[] | undefined,
): ReadonlySet<NativeApi> {
  if (protocol === 'anthropic') return new Set(['messages']);
  return new Set(apis?.includes('responses') === true ? ['responses'] : []);
}

/** An OTLP/HTTP base address as the traces URL: `/v1/traces` appended unless the path already ends so (as OTEL_EXPORTER_OTLP_ENDPOINT). */
function tracesUrl(endpoint: string | undefined): string | undefined {
  if (endpoint === undefined) return undefined;
  const trimmed = endpoint.replace(/\/+$/, '');
  return trimmed.endsWith('/v1/traces') ? trimmed : `${trimmed}/v1/traces`;
}

/** Aliases no two models claim, none another model's id (PRODUCT.md decision 25). */
function checkModelAliases(models: readonly ModelConfig[], source: string): void {
  try {
    new ModelCatalog(models);
  } catch (error) {
    if (error instanceof ModelAliasConflict) throw new ConfigError(source, error.path, error.problem);
    throw error;
  }
}
