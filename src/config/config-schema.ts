import { Type, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { MAX_BALANCE_USD } from './money-bounds.js';
import { MAX_ALIASES_PER_MODEL } from './model-catalog.js';
import { REASONING_EFFORTS } from './reasoning-efforts.js';
import { ANTHROPIC_VERSIONS, WIRE_PROTOCOLS, type WireProtocol } from './wire-protocols.js';

/**
 * The public YAML configuration shape (PRODUCT.md "Configuration shape"), as a JSON
 * schema compiled once at start. Field names are snake_case as in the YAML file.
 */

/** Literal unions built from a list keep their literal type. */
const literals = <T extends string>(values: readonly T[]) =>
  Type.Union(values.map((value) => Type.Literal(value))) as unknown as TUnion<Array<TLiteral<T>>>;

const Effort = literals(REASONING_EFFORTS);

const TimeoutsSchema = Type.Object(
  {
    connect_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    first_byte_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    idle_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    total_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    /** The slowest rate a healthy node writes output at: a non-streamed reply's first byte may take its output cap at this rate on top of first_byte_ms. */
    min_tokens_per_second: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  },
  { additionalProperties: false },
);

/** Caps on what a node may send back (PRODUCT.md decision 22). */
const NodeRepliesSchema = Type.Object(
  {
    /** A non-streaming reply body larger than this → 502 bad_gateway, counted against the node. */
    max_json_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
    /** One stream event larger than this → the stream ends with an error event (or fails over before the first byte). */
    max_event_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
  },
  { additionalProperties: false },
);

const RateLimitsSchema = Type.Object(
  {
    rpm: Type.Optional(Type.Integer({ minimum: 1 })),
    rps: Type.Optional(Type.Integer({ minimum: 1 })),
    tpm: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** One rule of a simulated node's script (src/simulator/README.md); regexes and placeholders are checked by resolve-config. */
const ScriptRuleSchema = Type.Object(
  {
    when: Type.Optional(
      Type.Object(
        {
          tools_offered: Type.Optional(Type.Boolean()),
          last_role: Type.Optional(literals(['user', 'assistant', 'tool', 'system'] as const)),
          last_message_matches: Type.Optional(Type.String({ minLength: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    call: Type.Optional(
      Type.Object(
        {
          tool: Type.String({ minLength: 1 }),
          arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        },
        { additionalProperties: false },
      ),
    ),
    answer: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const SimulatedNodeSettingsSchema = Type.Object(
  {
    first_byte_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    tokens_per_second: Type.Optional(Type.Number({ minimum: 0 })),
    reasoning_field: Type.Optional(Type.Union([Type.Literal('reasoning_content'), Type.Literal('reasoning')])),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    /** The wire protocol the simulated node speaks (default openai). */
    protocol: Type.Optional(literals<WireProtocol>(WIRE_PROTOCOLS)),
    /** Scripted answers by model name as the node sees it (`"*"`: every other model). */
    scripts: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.Array(ScriptRuleSchema, { minItems: 1 }))),
    /** A prefix cache like vLLM's (off when absent): capacity in tokens, block size in tokens (default 16). */
    prefix_cache: Type.Optional(
      Type.Object(
        {
          capacity_tokens: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
          block_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** ms of first-token delay per prompt token not found in the prefix cache (default 0). */
    prefill_ms_per_token: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
    /** Requests the node runs at once, like vLLM's max_num_seqs; later ones wait (default: no limit). */
    max_num_seqs: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** Reading the node's own load from its Prometheus endpoint (vLLM, SGLang; docs/routing-and-failover.md). */
const LoadMetricsSchema = Type.Object(
  {
    /** The node's metrics endpoint; default: the base URL's origin + `/metrics` (vLLM and SGLang serve it on the API port). */
    url: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** How often it is read (default 1000 ms). */
    interval_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
    /** A read that takes longer is abandoned (default 500 ms). */
    timeout_ms: Type.Optional(Type.Integer({ minimum: 10, maximum: 60_000 })),
    /** A longer metrics page is not read (default 4 MiB). */
    max_bytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024 })),
  },
  { additionalProperties: false },
);

export const NodeSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, pattern: '^[A-Za-z0-9._-]+$' }),
    provider: literals<WireProtocol | 'simulated'>([...WIRE_PROTOCOLS, 'simulated']),
    base_url: Type.Optional(Type.String({ pattern: '^https?://' })),
    api_key: Type.Optional(Type.String()),
    max_concurrency: Type.Optional(Type.Integer({ minimum: 1 })),
    weight: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    timeouts: Type.Optional(TimeoutsSchema),
    replies: Type.Optional(NodeRepliesSchema),
    /** How an OpenAI-protocol node takes the reasoning effort: `reasoning_effort` (default) or `reasoning: {effort}` (OpenRouter). */
    reasoning_param: Type.Optional(Type.Union([Type.Literal('reasoning_effort'), Type.Literal('reasoning')])),
    /** The field an OpenAI-protocol node is sent the output cap in when the client named none: `max_tokens` (default) or `max_completion_tokens`. */
    max_tokens_field: Type.Optional(Type.Union([Type.Literal('max_tokens'), Type.Literal('max_completion_tokens')])),
    /** The OpenAI APIs an OpenAI-protocol node serves: `[chat]` (default) or `[chat, responses]` (OpenAI, vLLM): Responses requests then pass through natively. */
    apis: Type.Optional(
      Type.Array(Type.Union([Type.Literal('chat'), Type.Literal('responses')]), { minItems: 1, maxItems: 2 }),
    ),
    /** The Anthropic API version an Anthropic-protocol node is sent (`anthropic-version`): 2023-06-01 (default) or 2026-10-21. */
    anthropic_version: Type.Optional(literals(ANTHROPIC_VERSIONS)),
    simulated: Type.Optional(SimulatedNodeSettingsSchema),
    load_metrics: Type.Optional(LoadMetricsSchema),
  },
  { additionalProperties: false },
);

const PricingSchema = Type.Object(
  {
    input: Type.Number({ minimum: 0 }),
    output: Type.Number({ minimum: 0 }),
    cached_input: Type.Optional(Type.Number({ minimum: 0 })),
    cache_write: Type.Optional(Type.Number({ minimum: 0 })),
    cache_write_1h: Type.Optional(Type.Number({ minimum: 0 })),
    reasoning: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

/** Bounds of `priced_features`: a name's length and how many of each a model may list. */
const FEATURE_NAME = { minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9_.-]*$' };
const MAX_FEATURES = 16;

/**
 * What a model allows of the priced features a node runs on its own (issue 28 finding 10;
 * docs/keys-and-money.md): server tools priced per call, service tiers and betas priced as
 * token price tables. Anything not listed is withdrawn or not forwarded.
 */
const PricedFeaturesSchema = Type.Object(
  {
    /** Server tools by name (`web_search`, `web_fetch`, `code_execution`, `code_interpreter`, `file_search`, `image_generation`). */
    server_tools: Type.Optional(
      Type.Record(
        Type.String(FEATURE_NAME),
        Type.Object(
          {
            usd_per_call: Type.Number({ minimum: 0 }),
            /** Calls one request may make (sent as the tool's cap where the protocol has one); the reservation covers them. */
            max_calls: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          },
          { additionalProperties: false },
        ),
        { maxProperties: MAX_FEATURES },
      ),
    ),
    /** Service tiers (`priority`, `flex`…) a client may ask for, each with the token prices the node charges in it. */
    service_tiers: Type.Optional(
      Type.Record(Type.String(FEATURE_NAME), Type.Object({ pricing: PricingSchema }, { additionalProperties: false }), {
        maxProperties: MAX_FEATURES,
      }),
    ),
    /** Priced Anthropic betas (`context-1m-2025-08-07`) a client may send, with the token prices of a prompt of at least `min_prompt_tokens`. */
    betas: Type.Optional(
      Type.Record(
        Type.String(FEATURE_NAME),
        Type.Object(
          { pricing: PricingSchema, min_prompt_tokens: Type.Optional(Type.Integer({ minimum: 0 })) },
          { additionalProperties: false },
        ),
        { maxProperties: MAX_FEATURES },
      ),
    ),
  },
  { additionalProperties: false },
);

const RouteSchema = Type.Object(
  {
    node: Type.String({ minLength: 1 }),
    model: Type.Optional(Type.String({ minLength: 1 })),
    weight: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    /** Lower tiers are tried first (primary / backup); weights apply within a tier. */
    priority: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

/** How a model's requests choose among its nodes (PRODUCT decision 26; docs/routing-and-failover.md). */
const ModelRoutingSchema = Type.Object(
  {
    /** `session` (default): a session key keeps a conversation on one node; `prefix`: also the conversation's opening when no key is given; `none`: off. */
    affinity: Type.Optional(Type.Union([Type.Literal('session'), Type.Literal('prefix'), Type.Literal('none')])),
    /** The preferred node is skipped above this many times the average in flight of its tier (default 1.25). */
    affinity_load_factor: Type.Optional(Type.Number({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);

const PerEffort = <T extends TSchema>(value: T, none: T = value) =>
  Type.Object(
    {
      none: Type.Optional(none),
      minimal: Type.Optional(value),
      low: Type.Optional(value),
      medium: Type.Optional(value),
      high: Type.Optional(value),
      xhigh: Type.Optional(value),
      max: Type.Optional(value),
    },
    { additionalProperties: false },
  );

const ReasoningLevel = literals(['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const);

const ModelReasoningSchema = Type.Object(
  {
    /** One of the efforts the model takes (low, medium, high, or one `efforts` lists). */
    default_effort: Effort,
    /** Efforts beyond low/medium/high the model takes (none, minimal, xhigh, max); others stay 400 (PRODUCT.md decision 19). */
    efforts: Type.Optional(Type.Array(Effort, { maxItems: REASONING_EFFORTS.length })),
    /** `budget`: thinking token budget per effort; `level`: an effort/level word per effort (newer Claude and Gemini). */
    style: Type.Optional(Type.Union([Type.Literal('budget'), Type.Literal('level')])),
    /** Thinking tokens per effort; `none` may be 0 (thinking off where the node allows it). */
    budgets: Type.Optional(PerEffort(Type.Integer({ minimum: 1 }), Type.Integer({ minimum: 0 }))),
    levels: Type.Optional(PerEffort(ReasoningLevel)),
    /** Answer tokens on top of the thinking budget in the output cap when the client names none (default 4096; docs/reasoning.md). */
    answer_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** `request_log` on a model, account or key: `bodies: true` keeps request and reply bodies in its request records. */
const RequestLogBodiesSchema = Type.Object({ bodies: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

const ModelSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    /** Other ids clients may send for this model: exact ids, or patterns with `*` (`claude-sonnet-*`, `*`); see docs/configuration.md. */
    aliases: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: MAX_ALIASES_PER_MODEL, uniqueItems: true }),
    ),
    owned_by: Type.Optional(Type.String({ minLength: 1 })),
    context_length: Type.Optional(Type.Integer({ minimum: 1 })),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    /** The output cap sent to nodes (and reserved) when the client sends none; clamped to `max_output_tokens` (a reasoning request may get more room: docs/reasoning.md). */
    default_max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Prompt tokens reserved for each input the gateway cannot size (an unresolved `item_reference`, a file by id); default `context_length` (docs/security-and-limits.md). */
    unresolved_input_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    reasoning: Type.Optional(ModelReasoningSchema),
    pricing: Type.Optional(PricingSchema),
    priced_features: Type.Optional(PricedFeaturesSchema),
    routing: Type.Optional(ModelRoutingSchema),
    routes: Type.Array(RouteSchema, { minItems: 1 }),
    request_log: Type.Optional(RequestLogBodiesSchema),
  },
  { additionalProperties: false },
);

/** Features an account or key may be denied (403 access_denied). */
const PolicySchema = Type.Object(
  {
    streaming: Type.Optional(Type.Boolean()),
    max_reasoning_effort: Type.Optional(Effort),
  },
  { additionalProperties: false },
);

/** Budgets that reset on the calendar (PRODUCT.md decision 27); a few per owner. */
const BudgetsSchema = Type.Array(
  Type.Object(
    {
      limit: Type.Number({ minimum: 0, maximum: MAX_BALANCE_USD }),
      period: Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')]),
    },
    { additionalProperties: false },
  ),
  { maxItems: 3 },
);

const AccountSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, pattern: '^[A-Za-z0-9._@-]+$' }),
    name: Type.Optional(Type.String()),
    /** USD; the starting balance when the account is first created. */
    balance: Type.Optional(Type.Number({ minimum: -MAX_BALANCE_USD, maximum: MAX_BALANCE_USD })),
    allowed_models: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    limits: Type.Optional(RateLimitsSchema),
    policy: Type.Optional(PolicySchema),
    request_log: Type.Optional(RequestLogBodiesSchema),
    budgets: Type.Optional(BudgetsSchema),
  },
  { additionalProperties: false },
);

const KeySchema = Type.Object(
  {
    /** At least 16 characters (issue 28 finding 5: a key must not be guessable). */
    key: Type.String({ minLength: 16 }),
    account: Type.Optional(Type.String({ minLength: 1 })),
    name: Type.Optional(Type.String()),
    spend_limit: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_BALANCE_USD })),
    limits: Type.Optional(RateLimitsSchema),
    allowed_models: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    policy: Type.Optional(PolicySchema),
    budgets: Type.Optional(BudgetsSchema),
    end_user_budgets: Type.Optional(BudgetsSchema),
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('blocked'), Type.Literal('revoked'), Type.Literal('deleted')]),
    ),
    request_log: Type.Optional(RequestLogBodiesSchema),
    /** An ISO 8601 time (quoted) from which the key is refused with 401. */
    expires_at: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const ConfigFileSchema = Type.Object(
  {
    listen: Type.Optional(
      Type.Object(
        {
          host: Type.Optional(Type.String({ minLength: 1 })),
          port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** `pglite:<dir>` (default), `postgres://…`, or `memory` (tests, demos: keeps the last 10,000 usage rows only). */
    store: Type.Optional(Type.String({ pattern: '^(memory|pglite:.*|postgres(ql)?://.+)$' })),
    usage: Type.Optional(
      Type.Object(
        {
          journal_dir: Type.Optional(Type.String({ minLength: 1 })),
          flush_interval_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000 })),
          max_batch_rows: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
          max_waiting_rows: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
          /** 0: streams in flight are not journaled (a crash loses their charge). */
          stream_progress_interval_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Stored responses of the Responses API (PRODUCT.md decision 17). */
    responses: Type.Optional(
      Type.Object(
        {
          retention_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
          /** A response whose Response object and input items together are larger is not stored. */
          max_stored_bytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 1024 * 1024 * 1024 })),
          /** Per account: live stored responses kept at most; a request asking to store more is 429. */
          max_stored_responses_per_account: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000 })),
          /** Per account: bytes of live stored responses kept at most; a request asking to store more is 429. */
          max_stored_bytes_per_account: Type.Optional(Type.Integer({ minimum: 1024, maximum: 2 ** 50 })),
          /** A previous_response_id reaching back through more stored responses is refused with 400. */
          max_conversation_responses: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          /** A previous_response_id whose stored conversation is larger is refused with 400. */
          max_conversation_bytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 1024 * 1024 * 1024 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** The request record (PRODUCT decision 28): one per request with a valid key. */
    request_log: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          retention_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
          max_rows: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
          body_retention_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
          max_body_bytes: Type.Optional(Type.Integer({ minimum: 256, maximum: 16 * 1024 * 1024 })),
          flush_interval_ms: Type.Optional(Type.Integer({ minimum: 10, maximum: 60_000 })),
          max_batch_rows: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
          max_queue_rows: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
          write_timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
          purge_interval_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 86_400_000 })),
          max_unauthenticated_addresses: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    redis: Type.Optional(Type.String({ pattern: '^rediss?://' })),
    /** Addresses or CIDRs (IPv4, IPv6) of proxies whose X-Forwarded-For is believed. */
    trusted_proxies: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    /** At least 24 characters. */
    admin_key: Type.Optional(Type.String({ minLength: 24 })),
    /** The operator console (/console, on when admin_key is set). */
    console: Type.Optional(
      Type.Object(
        {
          /** How long a console sign-in lasts (default 12 hours, at most 7 days). */
          session_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600 })),
          /** A link to a request's trace: an http(s) URL with `{trace_id}` in it (e.g. https://tracing.example/trace/{trace_id}). */
          trace_url: Type.Optional(
            Type.String({ pattern: '^https?://[^\\s]*\\{trace_id\\}[^\\s]*$', maxLength: 2048 }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    log_level: Type.Optional(
      Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level))),
    ),
    limits: Type.Optional(
      Type.Object(
        {
          key: Type.Optional(RateLimitsSchema),
          ip: Type.Optional(RateLimitsSchema),
          account: Type.Optional(RateLimitsSchema),
          /** Failed authentications per client address per minute; beyond → 429 rate_limited (default 30). */
          auth_failures_per_minute: Type.Optional(Type.Integer({ minimum: 1 })),
          /** Tokens one key may have counted per minute by count_tokens / input_tokens; beyond → 429 (default 4,000,000). */
          count_tokens_per_minute: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    failover: Type.Optional(
      Type.Object(
        {
          max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
          retry_on_status: Type.Optional(Type.Array(Type.Integer({ minimum: 400, maximum: 599 }))),
          /** When every node tried was busy with a Retry-After: the smallest hint is passed on, at most this. */
          max_retry_after_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
        },
        { additionalProperties: false },
      ),
    ),
    timeouts: Type.Optional(TimeoutsSchema),
    node_replies: Type.Optional(NodeRepliesSchema),
    health: Type.Optional(
      Type.Object(
        {
          failure_threshold: Type.Optional(Type.Integer({ minimum: 1 })),
          base_ejection_ms: Type.Optional(Type.Integer({ minimum: 1 })),
          max_ejection_ms: Type.Optional(Type.Integer({ minimum: 1 })),
          probe_interval_ms: Type.Optional(Type.Integer({ minimum: 0 })),
          probe_path: Type.Optional(Type.String({ pattern: '^/' })),
          probe_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    http: Type.Optional(
      Type.Object(
        {
          body_limit_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
          sse_keepalive_ms: Type.Optional(Type.Integer({ minimum: 100 })),
          headers_timeout_ms: Type.Optional(Type.Integer({ minimum: 100 })),
          request_timeout_ms: Type.Optional(Type.Integer({ minimum: 0 })),
          body_idle_timeout_ms: Type.Optional(Type.Integer({ minimum: 100 })),
          keep_alive_timeout_ms: Type.Optional(Type.Integer({ minimum: 0 })),
          max_connections: Type.Optional(Type.Integer({ minimum: 0 })),
          listen_backlog: Type.Optional(Type.Integer({ minimum: 1 })),
          max_messages: Type.Optional(Type.Integer({ minimum: 1 })),
          max_choices: Type.Optional(Type.Integer({ minimum: 1, maximum: 128 })),
          max_json_depth: Type.Optional(Type.Integer({ minimum: 2, maximum: 1000 })),
          max_body_bytes_in_flight: Type.Optional(Type.Integer({ minimum: 1024 })),
          max_body_bytes_in_flight_per_key: Type.Optional(Type.Integer({ minimum: 1024 })),
          max_body_bytes_in_flight_per_account: Type.Optional(Type.Integer({ minimum: 1024 })),
          max_body_bytes_in_flight_per_ip: Type.Optional(Type.Integer({ minimum: 1024 })),
          max_drain_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
          drain_timeout_ms: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    log: Type.Optional(
      Type.Object(
        {
          bodies: Type.Optional(Type.Boolean()),
          format: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')])),
        },
        { additionalProperties: false },
      ),
    ),
    metrics: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          listen: Type.Optional(
            Type.Object(
              {
                host: Type.Optional(Type.String({ minLength: 1 })),
                port: Type.Integer({ minimum: 0, maximum: 65535 }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    /** OpenTelemetry traces (PRODUCT.md decision 29): off unless an OTLP endpoint is set here or in OTEL_EXPORTER_OTLP_*. */
    telemetry: Type.Optional(
      Type.Object(
        {
          otlp: Type.Optional(
            Type.Object(
              {
                /** The collector's OTLP/HTTP address; traces go to `{endpoint}/v1/traces` unless it already ends so. */
                endpoint: Type.Optional(Type.String({ pattern: '^https?://' })),
                headers: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.String())),
                timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000 })),
              },
              { additionalProperties: false },
            ),
          ),
          service_name: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
          /** The share of new traces recorded (0..1); a client's sampled flag decides for the traces it continues. */
          sample_ratio: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
          capture_content: Type.Optional(Type.Boolean()),
          max_content_chars: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_048_576 })),
          max_queue_spans: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
          batch_spans: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          batch_interval_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    shutdown: Type.Optional(
      Type.Object({ grace_ms: Type.Optional(Type.Integer({ minimum: 0 })) }, { additionalProperties: false }),
    ),
    nodes: Type.Array(NodeSchema, { minItems: 1 }),
    models: Type.Array(ModelSchema, { minItems: 1 }),
    /** IANA zone of budget windows (default UTC). */
    budget_timezone: Type.Optional(Type.String({ minLength: 1 })),
    /** Budget windows kept in memory (default 10000). */
    budget_cached_windows: Type.Optional(Type.Integer({ minimum: 100, maximum: 10_000_000 })),
    accounts: Type.Optional(Type.Array(AccountSchema)),
    keys: Type.Optional(Type.Array(KeySchema)),
  },
  { additionalProperties: false },
);

/** The configuration file after YAML parsing, env interpolation and schema validation. */
export type ConfigFile = Static<typeof ConfigFileSchema>;
export type NodeConfigFile = Static<typeof NodeSchema>;
export type RateLimitsFile = Static<typeof RateLimitsSchema>;
export type BudgetsFile = Static<typeof BudgetsSchema>;
