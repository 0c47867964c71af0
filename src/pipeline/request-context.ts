import type { Language } from '../errors/codes.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';

/** One try of one node, as logged (issue: failover observability). */
export interface AttemptRecord {
  readonly node: string;
  readonly status?: number;
  readonly error?: string;
  readonly ms: number;
}

/** What the request's log line reports; filled in by the stages as they run. */
export interface RequestRecord {
  keyPrefix?: string;
  accountId?: string;
  model?: string;
  stream: boolean;
  attempts: AttemptRecord[];
  status?: number;
  errorCode?: string;
  usage?: Usage;
  usageEstimated?: boolean;
  /** What the request was charged, nano-USD (0 for a free model). */
  costNano?: number;
  finishReason?: string;
  firstByteMs?: number;
  clientAborted: boolean;
}

/** Per-request state shared by the HTTP layer and the pipeline. */
export interface RequestContext {
  readonly requestId: string;
  readonly correlationId: string;
  readonly language: Language;
  /** performance.now() when the request arrived. */
  readonly startedAt: number;
  /** Aborted when the client goes away or the total deadline passes. */
  readonly signal: AbortSignal;
  /** Why `signal` fired, once it has. */
  abortCause: 'client' | 'deadline' | undefined;
  readonly record: RequestRecord;
  /** X-RateLimit-* of the limits this request was counted against, once it was. */
  rateLimitHeaders?: Record<string, string>;
}
