import type { Language } from '../errors/codes.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import type { Cancellation } from '../upstream/cancellation.js';
import type { ReportedFeatures } from '../billing/feature-prices.js';
import type { RequestTrace } from '../telemetry/request-trace.js';
import type { BookedUsage } from '../billing/booked-usage.js';
import type { ConfigurationSnapshot } from '../configuration-snapshot.js';

/** A client-facing protocol: Chat Completions, Anthropic Messages, OpenAI Responses (docs/architecture.md). */
export type FrontDoorName = 'chat' | 'messages' | 'responses';

/** `hit`: the session's preferred node served it; `spill`: another node did; `none`: no session key or affinity off. */
export type AffinityOutcome = 'hit' | 'spill' | 'none';

/** One try of one node, as logged (issue: failover observability) and kept in the request record. */
export interface AttemptRecord {
  readonly node: string;
  readonly status?: number;
  /** Why it failed, in words (the log line's `error`). */
  readonly error?: string;
  /** The failure's error code (`bad_gateway`, `upstream_timeout`, `client_aborted`…); undefined on success. */
  readonly errorCode?: string;
  /** Ms from the request's arrival to the attempt's start. */
  readonly startedMs?: number;
  /** Ms from the attempt's start to the node's response headers; undefined when none came. */
  readonly firstByteMs?: number;
  /** Ms from the attempt's start to its outcome (a stream's first event when it succeeded). */
  readonly ms: number;
}

/**
 * The bodies a request record keeps (`request_log.bodies` on the request's key, account or
 * model): the request as it came, and the reply as the client got it (a JSON body, or a
 * stream's events as sent) up to about `limit` bytes (`request_log.max_body_bytes`; the
 * writer cuts to the exact byte and redacts secrets).
 */
export interface BodyCapture {
  /** Whether the bodies are kept: false while only the model could still ask for them (not known before the body is parsed). */
  kept: boolean;
  readonly request: string;
  reply: string;
  replyBytes: number;
  readonly limit: number;
}

/**
 * What the pipeline learned of a request it ran, as values: what settle books and what the
 * request record shows of it (the pipeline writes it there in one step, writeRecord).
 */
export interface RequestRun {
  readonly frontDoor: FrontDoorName;
  /** The model id the client sent. */
  readonly model: string;
  /** The configured model that served it, once resolved. */
  readonly modelServed?: string;
  readonly endUser?: string;
  readonly stream: boolean;
  readonly attempts: readonly AttemptRecord[];
  readonly affinity?: AffinityOutcome;
  /** The usage the request is booked on, once a node produced (or was cut producing). */
  readonly booked?: BookedUsage;
  readonly finishReason?: string;
  /** Ms from arrival to the first byte of a successful reply (JSON body or first stream event). */
  readonly firstByteMs?: number;
  /** The code of the failure a started stream ended with (its error event); the HTTP edge writes the others. */
  readonly streamErrorCode?: string;
}

/**
 * What the request's log line, request record, trace and metrics report. The pipeline's
 * part is written in one step from a `RequestRun` (pipeline/write-record.ts); the HTTP edge
 * writes what only it knows (the status sent, a client gone, the bodies, the key).
 */
export interface RequestRecord {
  /** The client-facing protocol the request came through (its route's; `chat` for the others). */
  frontDoor: FrontDoorName;
  /** The id of the request's key, once the key is known valid: the request then has a request record (PRODUCT decision 28). */
  keyId?: string;
  keyPrefix?: string;
  accountId?: string;
  /** The model id the client sent (an alias or the model's own id). */
  model?: string;
  /** The configured model that served it, once resolved (differs from `model` when the client sent an alias, PRODUCT decision 25). */
  modelServed?: string;
  /** The end user the request is for (PRODUCT decision 27), as the front door read it; at most 128 characters. */
  endUser?: string;
  /** Whether the session's preferred node took the request (PRODUCT decision 26); undefined before routing. */
  affinity?: AffinityOutcome;
  stream: boolean;
  attempts: readonly AttemptRecord[];
  status?: number;
  errorCode?: string;
  usage?: Usage;
  usageEstimated?: boolean;
  /** Priced features the node reported for the reply (server-tool calls, service tier); set with `usage`. */
  reportedFeatures?: ReportedFeatures;
  finishReason?: string;
  /** Ms from arrival to the first byte of a successful reply (JSON body or first stream event). */
  firstByteMs?: number;
  clientAborted: boolean;
  /** USD booked for this request when it settled (logged as `cost_usd`). */
  costUsd?: number;
  /** The W3C trace id of the request's span when tracing is on (PRODUCT decision 29), for the request record. */
  traceId?: string;
  /** The raw request body, kept only when `log.bodies` is on (debugging). */
  requestBody?: string;
  /** Set when the request record may keep this request's bodies; collects them while `kept`. */
  bodies?: BodyCapture;
}

/** Per-request state shared by the HTTP layer and the pipeline. */
export interface RequestContext {
  readonly requestId: string;
  readonly correlationId: string;
  readonly language: Language;
  /** performance.now() when the request arrived. */
  readonly startedAt: number;
  /** The configuration the request runs under, taken at its start: it reads no other to its end. */
  readonly snapshot: ConfigurationSnapshot;
  /** Aborted when the client goes away, the total deadline passes or the gateway cuts the request at shutdown. */
  readonly cancellation: Cancellation;
  /** Why `cancellation` fired, once it has: the client left, the total deadline passed, or the gateway is shutting down. */
  abortCause: 'client' | 'deadline' | 'shutdown' | undefined;
  readonly record: RequestRecord;
  /** The request's trace when tracing is on and the path is traced (telemetry/); the pipeline reports node attempts to it. */
  trace?: RequestTrace;
  /** X-RateLimit-* of the limits this request was counted against, once it was. */
  rateLimitHeaders?: Record<string, string>;
}
