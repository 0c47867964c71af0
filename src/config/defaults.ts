import type { LimitSettings, NodeReplyLimits, TimeoutSettings } from './gateway-config.js';

/** Defaults for everything the configuration file may leave out (PRODUCT.md). */
export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  store: 'pglite:./.switchyard/data',
  usageJournalDir: './.switchyard/journal',
  usageFlushIntervalMs: 200,
  usageMaxBatchRows: 1000,
  usageMaxWaitingRows: 100_000,
  usageStreamProgressIntervalMs: 2_000,
  /** Budget windows follow the calendar in UTC unless `budget_timezone` names a zone. */
  budgetTimezone: 'UTC',
  /** Budget windows kept in memory (end users' windows are the many ones). */
  budgetCachedWindows: 10_000,
  /** PRODUCT.md decision 17: 30 days, as OpenAI; a request at the body limit plus a long reply fits the cap. */
  /** Per account: 10,000 responses and 256 MiB (issue 28 item 8); a conversation read back: 1,000 responses, 32 MiB (item 2). */
  responses: {
    retentionDays: 30,
    maxStoredBytes: 8 * 1024 * 1024,
    maxStoredResponsesPerAccount: 10_000,
    maxStoredBytesPerAccount: 256 * 1024 * 1024,
    maxConversationResponses: 1000,
    maxConversationBytes: 32 * 1024 * 1024,
  },
  /** PRODUCT decision 28: a week of records, bodies a day; batches every second, a bounded queue. */
  requestLog: {
    enabled: true,
    retentionDays: 7,
    maxRows: 1_000_000,
    bodyRetentionDays: 1,
    maxBodyBytes: 64 * 1024,
    flushIntervalMs: 1_000,
    maxBatchRows: 1_000,
    maxQueueRows: 20_000,
    writeTimeoutMs: 5_000,
    purgeIntervalMs: 60_000,
    maxUnauthenticatedAddresses: 1_000,
  },
  logLevel: 'info',
  /** A console sign-in lasts 12 hours. */
  consoleSessionTtlSeconds: 12 * 3600,
  maxAttempts: 3,
  /** A node's Retry-After passed on when every node tried was busy: at most a minute. */
  maxRetryAfterSeconds: 60,
  retryOnStatus: [401, 403, 408, 429, 500, 502, 503, 504, 529],
  timeouts: {
    connectMs: 5_000,
    firstByteMs: 120_000,
    idleMs: 60_000,
    totalMs: 600_000,
    minTokensPerSecond: 10,
  } satisfies TimeoutSettings,
  nodeReplies: { maxJsonBytes: 32 * 1024 * 1024, maxEventBytes: 8 * 1024 * 1024 } satisfies NodeReplyLimits,
  bodyLimitBytes: 4 * 1024 * 1024,
  sseKeepaliveMs: 15_000,
  http: {
    headersTimeoutMs: 30_000,
    requestTimeoutMs: 120_000,
    bodyIdleTimeoutMs: 30_000,
    keepAliveTimeoutMs: 65_000,
    maxConnections: 10_000,
    listenBacklog: 511,
    maxMessages: 2_048,
    maxChoices: 16,
    maxJsonDepth: 64,
    maxBodyBytesInFlight: 256 * 1024 * 1024,
    maxBodyBytesInFlightPerKey: 16 * 1024 * 1024,
    maxBodyBytesInFlightPerAccount: 32 * 1024 * 1024,
    maxBodyBytesInFlightPerIp: 32 * 1024 * 1024,
    maxDrainBytes: 64 * 1024 * 1024,
    drainTimeoutMs: 30_000,
  },
  /** Traces: a short export time-out and a bounded queue, so a slow collector costs spans, never requests. */
  telemetry: {
    timeoutMs: 3_000,
    serviceName: 'switchyard',
    maxContentChars: 16_384,
    maxQueueSpans: 4_096,
    batchSpans: 512,
    batchIntervalMs: 2_000,
  },
  shutdownGraceMs: 30_000,
  maxConcurrency: 64,
  /** Calls of an allowed server tool one request may make, when `priced_features.server_tools.<tool>.max_calls` says none. */
  serverToolMaxCalls: 10,
  weight: 1,
  /** A node's own load (`load_metrics`): read every second, within 500 ms, at most 4 MiB. */
  loadMetrics: { intervalMs: 1_000, timeoutMs: 500, maxBytes: 4 * 1024 * 1024 },
  /** PRODUCT decision 26: sessions stay on one node unless it is over 1.25 × its tier's average load. */
  routing: { affinity: 'session', affinityLoadFactor: 1.25 },
  ownedBy: 'switchyard',
  /** PRODUCT.md decision 11: 600 RPM per key, 1200 RPM per client IP; nothing else unless configured. */
  limits: {
    key: { rpm: 600, rps: undefined, tpm: undefined },
    account: { rpm: undefined, rps: undefined, tpm: undefined },
    ip: { rpm: 1200, rps: undefined, tpm: undefined },
    /** Failed authentications per client address per minute (issue 28 finding 5): a burst of 30, then one per 2 s. */
    authFailuresPerMinute: 30,
    /** Tokens one key may have counted per minute by the counting routes (issue 28 finding 7), taken up front by body bytes: one 4 MB body a minute. */
    countTokensPerMinute: 4_000_000,
  } satisfies LimitSettings,
  /**
   * Reasoning defaults per effort (docs/reasoning.md): Google's own OpenAI-compat budgets for
   * low/medium/high; `none` thinks not at all, `minimal` at Anthropic's floor, `xhigh` and `max` above high.
   */
  reasoning: {
    budgets: { none: 0, minimal: 1024, low: 1024, medium: 8192, high: 24576, xhigh: 32768, max: 65536 },
    levels: { low: 'low', medium: 'medium', high: 'high' },
  },
  simulated: {
    firstByteMs: 0,
    tokensPerSecond: 0,
    reasoningField: 'reasoning_content',
    port: 0,
    /** vLLM's KV-cache block size. */
    blockTokens: 16,
    prefillMsPerToken: 0,
  },
} as const;
