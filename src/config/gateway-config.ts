/**
 * The resolved runtime configuration: defaults applied, names camelCased, references
 * checked. Everything after `config/` reads this, never the raw file.
 */

import type { AnthropicVersion, WireProtocol } from './wire-protocols.js';
import type { HealthSettings } from './node-health-settings.js';
import type { SimulatorScriptsFile } from './simulator-scripts.js';

import type { ReasoningEffort } from './reasoning-efforts.js';

export type { ReasoningEffort } from './reasoning-efforts.js';

/** Upstream time limits in milliseconds (PRODUCT.md configuration `timeouts`). */
export interface TimeoutSettings {
  readonly connectMs: number;
  readonly firstByteMs: number;
  readonly idleMs: number;
  readonly totalMs: number;
  /**
   * The slowest output rate of a healthy node, tokens per second: a non-streamed reply comes
   * whole, so its first byte may take `firstByteMs` plus its output cap at this rate.
   */
  readonly minTokensPerSecond: number;
}

/** Caps on a node's replies (configuration `node_replies`, per node `replies`). */
export interface NodeReplyLimits {
  /** A non-streaming reply body larger than this is refused (502 bad_gateway, the node's failure). */
  readonly maxJsonBytes: number;
  /** The most characters one stream event may hold; more ends the stream (decision 4) or fails over. */
  readonly maxEventBytes: number;
}

/** A client-facing API that some nodes serve in its own wire format. */
export type NativeApi = 'messages' | 'responses';

/** One configured upstream endpoint. */
export interface NodeConfig {
  readonly id: string;
  /** What the operator wrote; `simulated` nodes speak `simulated.protocol` (default openai). */
  readonly provider: WireProtocol | 'simulated';
  /** The wire protocol used to talk to the node. */
  readonly protocol: WireProtocol;
  /** Base URL without a trailing slash, e.g. http://10.0.0.5:8000/v1. Filled in at start for simulated nodes. */
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly maxConcurrency: number;
  readonly weight: number;
  readonly timeouts: TimeoutSettings;
  readonly replies: NodeReplyLimits;
  readonly reasoningParam: 'reasoning_effort' | 'reasoning';
  /** Where an OpenAI-protocol node gets the output cap when the client named no field (PRODUCT.md decision 20). */
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /**
   * The client-facing APIs other than Chat Completions this node serves in their own wire
   * format, so such requests pass through natively (PRODUCT.md decision 15): `messages` for
   * every Anthropic node, `responses` for an OpenAI node configured `apis: [chat, responses]`.
   */
  readonly nativeApis: ReadonlySet<NativeApi>;
  /** The `anthropic-version` an Anthropic-protocol node is sent, whatever the client sent (others: the default, unused). */
  readonly anthropicVersion: AnthropicVersion;
  readonly simulated: SimulatedNodeSettings | undefined;
  /** Where and how often the node's own load is read (`load_metrics`); absent: not read. */
  readonly loadMetrics?: LoadMetricsSettings;
}

/** Reading a node's queue and KV-cache pressure from its Prometheus endpoint (`load_metrics`). */
export interface LoadMetricsSettings {
  /** The metrics URL; undefined: the node's base URL origin + `/metrics`, once the base URL is known. */
  readonly url: string | undefined;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** Settings of a node the gateway simulates itself. */
export interface SimulatedNodeSettings {
  readonly firstByteMs: number;
  readonly tokensPerSecond: number;
  readonly reasoningField: 'reasoning_content' | 'reasoning';
  readonly port: number;
  /** Scripted answers by model name, as written (checked at load); empty: none. */
  readonly scripts: SimulatorScriptsFile;
  /** The node's prefix cache; undefined: none. */
  readonly prefixCache: { readonly capacityTokens: number; readonly blockTokens: number } | undefined;
  /** First-token delay per uncached prompt token, ms. */
  readonly prefillMsPerToken: number;
  /** Requests run at once; undefined: no limit. */
  readonly maxNumSeqs: number | undefined;
}

/** USD per one million tokens. */
export interface ModelPricing {
  readonly input: number;
  readonly output: number;
  readonly cachedInput: number | undefined;
  /** Prompt written to a 5-minute prompt cache (Anthropic); undefined: 1.25 × input. */
  readonly cacheWrite: number | undefined;
  /** Prompt written to a 1-hour prompt cache (Anthropic); undefined: 2 × input. */
  readonly cacheWrite1h: number | undefined;
  readonly reasoning: number | undefined;
}

/** A server tool a model allows (`priced_features.server_tools`). */
export interface ServerToolPrice {
  readonly usdPerCall: number;
  /** Calls one request may make: sent as the tool's cap where its protocol has one, and reserved. */
  readonly maxCalls: number;
}

/** A priced beta a model allows (`priced_features.betas`): its token prices, for a prompt of at least `minPromptTokens`. */
export interface BetaPrice {
  readonly pricing: ModelPricing;
  readonly minPromptTokens: number;
}

/**
 * The priced features a node runs on its own that a model allows, and what they cost
 * (`priced_features`, docs/keys-and-money.md). Empty maps: none allowed, the default.
 */
export interface PricedFeatures {
  /** Server tools by name (the tool's type without its version date). */
  readonly serverTools: ReadonlyMap<string, ServerToolPrice>;
  /** Service tiers a client may ask for, with the token prices of each. */
  readonly serviceTiers: ReadonlyMap<string, ModelPricing>;
  /** Priced Anthropic betas (`anthropic-beta` values) a client may send. */
  readonly betas: ReadonlyMap<string, BetaPrice>;
}

/** Where a model can be served: a node and the model's name there. */
export interface ModelRoute {
  readonly nodeId: string;
  readonly upstreamModel: string;
  readonly weight: number;
  /** Tier: all routes of a lower priority are tried before any of a higher one. */
  readonly priority: number;
}

/** What an effort maps to, for the efforts every reasoning model takes (the others are optional where used). */
export type PerEffort<T> = Readonly<Record<'low' | 'medium' | 'high', T>>;

/** A protocol's effort-or-level value (Anthropic `output_config.effort`, Gemini `thinkingLevel`, lower-case here). */
export type ReasoningLevel = 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** How a reasoning model is asked to think, on nodes whose protocol needs more than the effort word. */
export interface ModelReasoningSettings {
  readonly defaultEffort: ReasoningEffort;
  /** The efforts a request may name beyond low, medium and high (`reasoning.efforts`, PRODUCT.md decision 19); absent: none. */
  readonly efforts?: ReadonlySet<ReasoningEffort>;
  /** `budget`: a token budget per effort (Claude ≤ 4.5, Gemini 2.5); `level`: an effort/level word (Claude ≥ 4.6, Gemini 3). */
  readonly style: 'budget' | 'level';
  /**
   * Thinking tokens per effort: sent on style budget, and on every style the room the output
   * cap leaves for thinking when the client names no cap (`none`: 0 by default).
   */
  readonly budgets: PerEffort<number> & Readonly<Partial<Record<ReasoningEffort, number>>>;
  /** Level word per effort (style level); an effort without one gets the protocol's nearest (docs/reasoning.md). */
  readonly levels: PerEffort<ReasoningLevel> & Readonly<Partial<Record<ReasoningEffort, ReasoningLevel>>>;
  /** Output tokens for the answer on top of the thinking budget when the client names no cap (`reasoning.answer_tokens`); absent: 4096. */
  readonly answerTokens?: number;
}

/** Session and prefix affinity of a model (`routing`, PRODUCT decision 26). */
export type AffinityMode = 'session' | 'prefix' | 'none';

/** How a model's requests choose among its nodes (`models[].routing`). */
export interface ModelRouting {
  readonly affinity: AffinityMode;
  /** The preferred node is skipped when its load is above this times the average of its tier. */
  readonly affinityLoadFactor: number;
}

/** A model clients can ask for. */
export interface ModelConfig {
  readonly id: string;
  /**
   * Other ids a client may send for this model (PRODUCT.md decision 25): exact ids, and
   * patterns with `*`; resolved by ModelCatalog. Absent: none.
   */
  readonly aliases?: readonly string[];
  readonly ownedBy: string;
  readonly created: number;
  readonly contextLength: number | undefined;
  readonly maxOutputTokens: number | undefined;
  /** The output cap sent to every node (and reserved) when the client gave none; clamped to `maxOutputTokens`. */
  readonly defaultMaxTokens: number | undefined;
  /**
   * Prompt tokens reserved for each input a node may be sent whose size the gateway cannot
   * know (`unresolved_input_tokens`); absent: the whole `contextLength` bounds the prompt.
   */
  readonly unresolvedInputTokens?: number;
  /** Absent: not a reasoning model, reasoning parameters are dropped. */
  readonly reasoning: ModelReasoningSettings | undefined;
  /** Absent: a free model. */
  readonly pricing: ModelPricing | undefined;
  /** Priced node features the model allows (server tools, service tiers, betas); absent: none. */
  readonly pricedFeatures?: PricedFeatures;
  /** Affinity settings; absent: the defaults (`session`, load factor 1.25). */
  readonly routing?: ModelRouting;
  readonly routes: readonly ModelRoute[];
  /** `request_log.bodies: true`: the request records of this model keep the request and reply bodies. */
  readonly requestLogBodies?: boolean;
}

/** Features an account or key may be denied. */
export interface PolicyConfig {
  readonly streaming?: boolean;
  readonly maxReasoningEffort?: ReasoningEffort;
}

export interface AccountConfig {
  readonly id: string;
  readonly name: string | undefined;
  /** USD: the starting balance, applied only when the account is created. */
  readonly balance: number;
  readonly allowedModels: readonly string[] | undefined;
  readonly limits: RateLimitSettings | undefined;
  readonly policy: PolicyConfig | undefined;
  /** `request_log.bodies: true`: the account's request records keep the request and reply bodies. */
  readonly requestLogBodies?: boolean;
  readonly budgets: readonly BudgetConfig[] | undefined;
}

export type KeyStatus = 'active' | 'blocked' | 'revoked' | 'deleted';

/** The calendar periods a budget resets on (PRODUCT.md decision 27). */
export type BudgetPeriod = 'day' | 'week' | 'month';

export interface BudgetWindowSettings {
  /** IANA zone name (`budget_timezone`, default UTC): days start at its midnight, weeks on Monday, months on the 1st. */
  readonly timeZone: string;
  /** Budget windows kept in memory (`budget_cached_windows`); idle ones beyond are dropped, least recently used first. */
  readonly cachedWindows: number;
}

/** At most `limit` USD spent per calendar `period` (in the gateway's `budget_timezone`). */
export interface BudgetConfig {
  readonly limit: number;
  readonly period: BudgetPeriod;
}

/** Requests per minute and per second, tokens per minute; `undefined`: no such limit. */
export interface RateLimitSettings {
  readonly rpm: number | undefined;
  readonly rps: number | undefined;
  readonly tpm: number | undefined;
}

/** Default rate limits per scope (PRODUCT.md decision 11); keys and accounts override them field by field. */
export interface LimitSettings {
  readonly key: RateLimitSettings;
  readonly account: RateLimitSettings;
  readonly ip: RateLimitSettings;
  /** Failed authentications (wrong API key, admin key or console sign-in) per client address per minute; beyond → 429. Undefined: none. */
  readonly authFailuresPerMinute?: number;
  /** Tokens one key may have counted per minute by POST /v1/messages/count_tokens and /v1/responses/input_tokens; beyond → 429. Undefined: none. */
  readonly countTokensPerMinute?: number;
}

export interface KeyConfig {
  readonly key: string;
  readonly accountId: string | undefined;
  readonly name: string | undefined;
  readonly spendLimit: number | undefined;
  readonly limits: RateLimitSettings | undefined;
  readonly allowedModels: readonly string[] | undefined;
  readonly policy: PolicyConfig | undefined;
  readonly budgets: readonly BudgetConfig[] | undefined;
  readonly endUserBudgets: readonly BudgetConfig[] | undefined;
  readonly status: KeyStatus;
  /** `request_log.bodies: true`: the key's request records keep the request and reply bodies. */
  readonly requestLogBodies?: boolean;
  /** ISO time (normalised to UTC) from which the key is refused; undefined: never. */
  readonly expiresAt: string | undefined;
}

/** Where usage rows wait before the store takes them. */
export interface UsageSettings {
  /** Directory of the crash journal; undefined for the memory store (nothing to keep). */
  readonly journalDir: string | undefined;
  readonly flushIntervalMs: number;
  readonly maxBatchRows: number;
  /** Rows that may wait while the store is unreachable; beyond, requests get 503 usage_backlog_full. */
  readonly maxWaitingRows: number;
  /** How often a stream in flight journals its usage so far (0 = never): a crash loses at most this much streaming. */
  readonly streamProgressIntervalMs: number;
}

/** Stored responses of the Responses API (PRODUCT.md decision 17, docs/responses-api.md). */
export interface ResponsesSettings {
  /** How long a stored response stays readable, from its creation. */
  readonly retentionDays: number;
  /** A response whose Response object and input items (JSON) are larger is not stored. */
  readonly maxStoredBytes: number;
  /** An account holding this many live stored responses stores no more (requests asking to are 429). */
  readonly maxStoredResponsesPerAccount: number;
  /** An account whose live stored responses hold this many bytes stores no more (requests asking to are 429). */
  readonly maxStoredBytesPerAccount: number;
  /** A `previous_response_id` reaching back through more stored responses is refused (400). */
  readonly maxConversationResponses: number;
  /** A `previous_response_id` whose stored conversation holds more bytes is refused (400). */
  readonly maxConversationBytes: number;
}

/** The request record (PRODUCT decision 28, docs/request-log.md): what is kept, how long, and how it is written. */
export interface RequestLogSettings {
  /** Off: no record is made or written (the bench's baseline). */
  readonly enabled: boolean;
  readonly retentionDays: number;
  /** Records kept at most (the memory store keeps 10,000 at most whatever this says). */
  readonly maxRows: number;
  /** How long kept request and reply bodies stay (cleared before the record goes). */
  readonly bodyRetentionDays: number;
  /** Each kept body is cut to this many bytes. */
  readonly maxBodyBytes: number;
  readonly flushIntervalMs: number;
  readonly maxBatchRows: number;
  /** Records waiting for the store at most; beyond, new ones are dropped and counted. */
  readonly maxQueueRows: number;
  /** A batch the store has not taken within this is counted as dropped (`store_slow`). */
  readonly writeTimeoutMs: number;
  /** How often retention and the row cap are applied. */
  readonly purgeIntervalMs: number;
  /** Client addresses counted apart per flush for requests without a valid key; the rest count as `_other`. */
  readonly maxUnauthenticatedAddresses: number;
  /** Whether some model has `request_log.bodies: true` (the request body is then held until the model is known). */
  readonly someModelKeepsBodies: boolean;
}

/** The client-facing HTTP server: sizes, time limits and caps against slow or abusive clients. */
export interface HttpSettings {
  readonly bodyLimitBytes: number;
  readonly sseKeepaliveMs: number;
  /** Until a request's headers are complete (node:http `headersTimeout`) → 408. */
  readonly headersTimeoutMs: number;
  /** Until the whole request (headers and body) is received (node:http `requestTimeout`; 0 = none) → 408. */
  readonly requestTimeoutMs: number;
  /** Longest silence between two chunks of a request body → 408 request_timeout. */
  readonly bodyIdleTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Concurrent client connections; more are refused at accept (0 = no cap). */
  readonly maxConnections: number;
  /** Pending-connection queue of the listening socket (the kernel caps it at net.core.somaxconn). */
  readonly listenBacklog: number;
  /** Most messages one chat request may carry → 400 validation_failed, param messages. */
  readonly maxMessages: number;
  /** Largest `n` (choices) one chat request may ask for → 400 validation_failed, param n. */
  readonly maxChoices: number;
  /** Deepest nesting of arrays and objects in a client's JSON body → 400 validation_failed. */
  readonly maxJsonDepth: number;
  /** Bytes of request bodies being read at once, all keys together; beyond → 503 server_busy. */
  readonly maxBodyBytesInFlight: number;
  /** Bytes of request bodies being read at once for one key; beyond → 429 rate_limited. */
  readonly maxBodyBytesInFlightPerKey: number;
  /** …for one account, all its keys together; beyond → 429 rate_limited. */
  readonly maxBodyBytesInFlightPerAccount: number;
  /** …from one client address, all its keys together; beyond → 429 rate_limited. */
  readonly maxBodyBytesInFlightPerIp: number;
  /** After an answer sent before the body was read (401, 413, 429…), how much more of it is read and discarded so the client can read the answer. */
  readonly maxDrainBytes: number;
  /** …and for how long at most; then the connection is closed. */
  readonly drainTimeoutMs: number;
}

/** How the process logs. */
export interface LogSettings {
  /** Debug only: request bodies go into the request's log line. Never on in production. */
  readonly bodies: boolean;
  /** `auto`: human-readable when stdout is a terminal, JSON lines otherwise. */
  readonly format: 'auto' | 'json' | 'pretty';
}

/** GET /metrics: on the main listener behind the admin key, or on its own address without auth. */
export interface MetricsSettings {
  readonly enabled: boolean;
  readonly listen: { readonly host: string; readonly port: number } | undefined;
}

/** OpenTelemetry traces (PRODUCT.md decision 29); read once at start. */
export interface TelemetrySettings {
  /** The collector's OTLP/HTTP traces URL from the file; undefined: the OTEL_EXPORTER_OTLP_* variables decide. */
  readonly endpoint: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** How long one export may take before it is given up (its spans counted as dropped). */
  readonly timeoutMs: number;
  readonly serviceName: string;
  /** The share of traces the gateway starts that are recorded and exported; a client's `traceparent` decides for its own. */
  readonly sampleRatio: number;
  /** Prompts and completions go into spans only when true. */
  readonly captureContent: boolean;
  /** The most characters of message content one span carries when captured. */
  readonly maxContentChars: number;
  /** Finished spans waiting for export; past it new spans are dropped and counted. */
  readonly maxQueueSpans: number;
  /** Spans per export request. */
  readonly batchSpans: number;
  /** Longest a finished span waits before its batch is sent. */
  readonly batchIntervalMs: number;
}

export interface GatewayConfig {
  /** The file the config came from, or "built-in demo". */
  readonly source: string;
  readonly listen: { readonly host: string; readonly port: number };
  readonly store: string;
  readonly usage: UsageSettings;
  readonly responses: ResponsesSettings;
  readonly requestLog: RequestLogSettings;
  readonly redis: string | undefined;
  readonly limits: LimitSettings;
  /** Peers whose X-Forwarded-For is believed: addresses and CIDRs, IPv4 and IPv6. */
  readonly trustedProxies: readonly string[];
  readonly adminKey: string | undefined;
  /** The operator console at /console (on when the admin API is). */
  readonly console: {
    readonly sessionTtlSeconds: number;
    /** The link template of a request's trace (`{trace_id}` is replaced); undefined: the console shows the id to copy. */
    readonly traceUrl: string | undefined;
  };
  readonly logLevel: string;
  readonly failover: {
    readonly maxAttempts: number;
    readonly retryOnStatus: ReadonlySet<number>;
    /** The most Retry-After seconds passed on from nodes that were all busy (issue 28, finding 12). */
    readonly maxRetryAfterSeconds: number;
  };
  readonly timeouts: TimeoutSettings;
  /** Caps on node replies; each node's own `replies` starts from these. */
  readonly nodeReplies: NodeReplyLimits;
  readonly health: HealthSettings;
  readonly http: HttpSettings;
  readonly log: LogSettings;
  readonly metrics: MetricsSettings;
  readonly telemetry: TelemetrySettings;
  readonly shutdown: { readonly graceMs: number };
  readonly nodes: readonly NodeConfig[];
  readonly models: readonly ModelConfig[];
  /** Budget windows: the IANA zone their calendar follows, and how many windows are kept in memory. */
  readonly budgetWindows: BudgetWindowSettings;
  readonly accounts: readonly AccountConfig[];
  readonly keys: readonly KeyConfig[];
}
