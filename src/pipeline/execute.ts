import { performance } from 'node:perf_hooks';
import type { OutputCap } from '../billing/estimate-request.js';
import type { ModelConfig, NodeConfig, ReasoningEffort } from '../config/gateway-config.js';
import { gatewayError, ownFault, type GatewayError } from '../errors/gateway-error.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { adapterFor } from '../providers/registry.js';
import { bodyWithoutNodeSecret } from '../providers/redact-node-secret.js';
import type { CallContext, NativeRequest, ReplySummary } from '../providers/types.js';
import type { ReplyFormat } from './front-door.js';
import { withoutReasoningBody, withoutReasoningStream } from '../providers/without-reasoning-text.js';
import type { NodeCandidate } from '../routing/router.js';
import { UpstreamEventReader, type MappedBatch } from '../streaming/upstream-event-reader.js';
import { isEmpty } from '../streaming/stream-events.js';
import { asNodeFailure, invalidReply } from '../upstream/node-failure.js';
import { firstByteDeadlineMs } from '../upstream/first-byte-deadline.js';
import { retryAfterHint } from '../upstream/retry-after-hint.js';
import { bookUnreportedReply } from '../billing/booked-usage.js';
import { replyTooLarge, requestOwnFailure, unreportedOutputTokens } from './request-own-failure.js';
import type { UpstreamResponse } from '../upstream/upstream-call.js';
import type { RequestContext } from '../context/request-context.js';

/** A node's stream, committed: its first events mapped, ready to relay. */
export interface StreamExecution {
  readonly kind: 'stream';
  /** `native`: the node's own events, in the client's protocol; `internal`: chat chunks. */
  readonly format: ReplyFormat;
  readonly reader: UpstreamEventReader;
  readonly first: MappedBatch;
  /** The node that is streaming. */
  readonly node: NodeConfig;
  /** Gives the node's concurrency slot back; call when the relay is over. */
  readonly release: () => void;
}

/** How a request reached a node and what came back, ready to relay. */
export type Execution =
  | {
      readonly kind: 'json';
      readonly format: ReplyFormat;
      readonly body: string;
      readonly summary: ReplySummary;
      /** The node that answered. */
      readonly node: NodeConfig;
    }
  | StreamExecution;

export interface ExecuteOptions {
  readonly request: ChatRequest;
  /** The client's request in its own protocol, for nodes that serve it natively. */
  readonly native: NativeRequest | undefined;
  readonly clientModel: string;
  /** The model as configured; adapters read its reasoning settings. */
  readonly model: ModelConfig;
  /** The per-choice output cap the reservation was priced on; every node is sent it. */
  readonly outputCap: OutputCap;
  readonly effort: ReasoningEffort | undefined;
  readonly stream: boolean;
  readonly candidates: readonly NodeCandidate[];
  readonly maxAttempts: number;
  readonly retryOnStatus: ReadonlySet<number>;
  /** The most Retry-After seconds passed on when every node tried was busy with a hint of its own. */
  readonly maxRetryAfterSeconds: number;
  /** The request deadline; a node with a shorter `total_ms` gets a per-attempt deadline. */
  readonly totalTimeoutMs: number;
}

/** Bodies of node errors are kept up to this size (passed through, logged). */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

/**
 * Walks the candidates, failing over on node failures until one node answers well
 * (spec 8.3–8.5, PRODUCT.md decisions 1–3). Each attempt holds a concurrency slot on its
 * node; a full node is skipped without spending an attempt. For a stream, "answers well"
 * means its first event was mapped: until then nothing has reached the client and another
 * node may be tried. A client error from a node is thrown at once, never retried; so is a
 * failure the request's own shape explains (request-own-failure.ts), which is billed and
 * never counts against the node.
 */
export async function execute(context: RequestContext, options: ExecuteOptions): Promise<Execution> {
  const { candidates, maxAttempts } = options;
  let lastFailure: GatewayError | undefined;
  /** The smallest Retry-After of the nodes tried, and whether every one of them gave one. */
  let retryAfter: number | undefined;
  let everyHinted = true;
  let tried = 0;
  let index = 0;
  for (; index < candidates.length && tried < maxAttempts; index++) {
    const candidate = candidates[index] as NodeCandidate;
    const lease = candidate.state.tryAcquire();
    if (lease === false) continue;
    tried++;
    const outcome = await attempt(context, options, candidate, lease);
    if (outcome.ok) return outcome.execution;
    if (!outcome.failure.retryable) throw outcome.failure;
    lastFailure = outcome.failure;
    everyHinted &&= outcome.retryAfter !== undefined;
    if (outcome.retryAfter !== undefined) retryAfter = Math.min(outcome.retryAfter, retryAfter ?? outcome.retryAfter);
  }
  const candidatesLeft = candidates.slice(index).some((candidate) => candidate.state.isAvailable());
  if (candidatesLeft && lastFailure !== undefined && lastFailure.upstream?.status === undefined) {
    // Decision 2: budget spent with nodes left, the last one unreachable or talking nonsense.
    throw gatewayError('bad_gateway', { retryAfter: 1, params: lastFailure.params, upstream: lastFailure.upstream });
  }
  // Every node tried was busy and said when to come back: the soonest, bounded (issue 28, finding 12).
  throw gatewayError('router_unavailable', {
    retryAfter: everyHinted && retryAfter !== undefined ? Math.min(retryAfter, options.maxRetryAfterSeconds) : 1,
    params: {
      model: options.clientModel,
      reason: tried === 0 ? 'every node is busy, down or drained' : `${tried} node attempt(s) failed`,
    },
  });
}

type AttemptOutcome =
  | { readonly ok: true; readonly execution: Execution }
  | {
      readonly ok: false;
      readonly failure: GatewayError;
      /** The node's Retry-After on a failover status, in seconds. */
      readonly retryAfter?: number;
    };

async function attempt(
  context: RequestContext,
  options: ExecuteOptions,
  candidate: NodeCandidate,
  lease: 'slot' | 'probe',
): Promise<AttemptOutcome> {
  const { node, state } = candidate;
  const started = performance.now();
  const callContext: CallContext = {
    requestId: context.requestId,
    correlationId: context.correlationId,
    clientModel: options.clientModel,
    upstreamModel: candidate.upstreamModel,
    node,
    model: options.model,
    outputCap: options.outputCap,
    effort: options.effort,
    stream: options.stream,
    // The chat door sends chunk events on as text (an OpenAI node's pass through); a door that
    // maps them, or a stream filtered chunk by chunk (`reasoning.exclude`), takes objects.
    streamForm: context.record.frontDoor === 'chat' && options.request.reasoning?.exclude !== true ? 'text' : 'chunks',
    retryOnStatus: options.retryOnStatus,
  };
  context.trace?.startAttempt(callContext, options.request);
  const adapter = adapterFor(node.protocol);
  // A node that serves the client's own protocol gets the client's request as it came (decision 15).
  const { native } = options;
  const nativeAdapter =
    native !== undefined && node.nativeApis.has(native.api) ? adapter.native?.[native.api] : undefined;
  const format: ReplyFormat = nativeAdapter === undefined ? 'internal' : 'native';
  // `reasoning.exclude` (PRODUCT.md decision 19): the reply goes out without reasoning text, billed with it.
  const excludeReasoning = nativeAdapter === undefined && options.request.reasoning?.exclude === true;
  const cancellation =
    node.timeouts.totalMs < options.totalTimeoutMs
      ? context.cancellation.withTimeout(node.timeouts.totalMs)
      : context.cancellation;
  /** The most output the request allows, every choice together. */
  const outputTokens = options.outputCap.tokens * (options.request.n ?? 1);
  let status: number | undefined;
  let firstByteMs: number | undefined;
  let retryAfter: number | undefined;
  let keepSlot = false;
  try {
    const upstreamCall = ownCode(() =>
      nativeAdapter === undefined
        ? adapter.toUpstream(options.request, callContext)
        : nativeAdapter.toUpstream(native as NativeRequest, callContext),
    );
    context.trace?.injectInto(upstreamCall.headers);
    const response = await candidate.client.send(
      upstreamCall,
      cancellation,
      options.stream
        ? undefined
        : firstByteDeadlineMs(node.timeouts, outputTokens, Math.min(node.timeouts.totalMs, options.totalTimeoutMs)),
    );
    status = response.statusCode;
    firstByteMs = performance.now() - started;
    const contentType = headerValue(response.headers['content-type']);
    if (status < 200 || status >= 300) {
      retryAfter = retryAfterHint(headerValue(response.headers['retry-after']));
      const body = bodyWithoutNodeSecret(await readCapped(response.body, MAX_ERROR_BODY_BYTES), node);
      throw ownCode(() => adapter.toError(status as number, body, contentType, callContext));
    }
    if (!options.stream) {
      const text = await readReply(response, node);
      const mapped = ownCode(() => (nativeAdapter ?? adapter).fromUpstream(text, callContext));
      const body = excludeReasoning ? ownCode(() => withoutReasoningBody(mapped.body)) : mapped.body;
      return succeed(context, candidate, started, status, firstByteMs, {
        kind: 'json',
        format,
        body,
        summary: mapped.summary,
        node,
      });
    }
    if (!contentType?.includes('text/event-stream')) {
      response.body.dump().catch(() => undefined);
      throw invalidReply(node.id, `asked for a stream, got ${contentType ?? 'no content type'}`);
    }
    const mapper = ownCode(() => (nativeAdapter ?? adapter).streamMapper(callContext));
    const reader = new UpstreamEventReader(
      response.body,
      excludeReasoning ? withoutReasoningStream(mapper) : mapper,
      node.replies.maxEventBytes,
    );
    try {
      const first = await reader.read();
      if (first.done && isEmpty(first)) throw invalidReply(node.id, 'the stream ended without any event');
      keepSlot = true;
      return succeed(context, candidate, started, status, firstByteMs, {
        kind: 'stream',
        format,
        reader,
        first,
        node,
        release: () => {
          state.release(lease);
          cancellation.release();
        },
      });
    } finally {
      if (!keepSlot) reader.release();
    }
  } catch (error) {
    if (context.cancellation.aborted) {
      record(
        context,
        candidate,
        started,
        status,
        context.abortCause === 'client' ? 'client aborted' : (context.abortCause ?? 'deadline'),
        ABORT_CODES[context.abortCause ?? 'deadline'],
        firstByteMs,
      );
      throw context.cancellation.reason;
    }
    const ownFailure = requestOwnFailure(error, node, options.stream, status !== undefined);
    if (ownFailure !== undefined) {
      // The request's, not the node's: no verdict on the node, no other node tried, billed.
      const elapsedMs = performance.now() - started;
      const completionTokens = unreportedOutputTokens(ownFailure, node, elapsedMs, outputTokens);
      bookUnreportedReply(context.record, options.request, completionTokens);
      record(
        context,
        candidate,
        started,
        status,
        `${ownFailure.code} (the request's, not the node's)`,
        ownFailure.code,
        firstByteMs,
      );
      return { ok: false, failure: ownFailure };
    }
    const failure = asNodeFailure(node.id, error);
    if (failure.code === 'internal_error') {
      // The gateway's own fault: the node is neither blamed nor credited, and no other is tried.
      record(context, candidate, started, status, 'gateway fault', failure.code, firstByteMs);
      throw failure;
    }
    if (failure.retryable) state.recordFailure();
    else state.recordSuccess(firstByteMs);
    record(
      context,
      candidate,
      started,
      failure.upstream?.status ?? status,
      String(failure.params.reason ?? failure.code),
      failure.code,
      firstByteMs,
    );
    return { ok: false, failure, retryAfter };
  } finally {
    if (!keepSlot) {
      state.release(lease);
      cancellation.release();
    }
  }
}

/** Runs the gateway's own mapping code: what it throws, other than a GatewayError, is an internal_error (decision 22). */
function ownCode<T>(map: () => T): T {
  try {
    return map();
  } catch (error) {
    throw ownFault(error);
  }
}

/**
 * A node's non-streaming reply body, refused past the node's `replies.max_json_bytes`: a
 * declared length over it is refused unread, a body that grows past it is torn down at once,
 * so no more than the cap is ever held. The request asked for that much: `reply_too_large`,
 * the request's failure, not the node's.
 */
async function readReply(response: UpstreamResponse, node: NodeConfig): Promise<string> {
  const limit = node.replies.maxJsonBytes;
  const declared = Number(headerValue(response.headers['content-length']));
  const text = declared > limit ? undefined : await response.body.text(limit);
  if (text === undefined) {
    response.body.destroy();
    throw replyTooLarge(node);
  }
  return text;
}

function succeed(
  context: RequestContext,
  candidate: NodeCandidate,
  started: number,
  status: number,
  firstByteMs: number,
  execution: Execution,
): AttemptOutcome {
  candidate.state.recordSuccess(firstByteMs);
  context.trace?.attemptAnswered(execution);
  record(context, candidate, started, status, undefined, undefined, firstByteMs);
  return { ok: true, execution };
}

/** The attempt's error code when the request itself was cut (the request record's `error_code` of the attempt). */
const ABORT_CODES = { client: 'client_aborted', deadline: 'upstream_timeout', shutdown: 'shutting_down' } as const;

function record(
  context: RequestContext,
  candidate: NodeCandidate,
  started: number,
  status?: number,
  error?: string,
  errorCode?: string,
  firstByteMs?: number,
): void {
  context.record.attempts.push({
    node: candidate.node.id,
    ms: hundredths(performance.now() - started),
    status,
    error,
    errorCode,
    startedMs: hundredths(started - context.startedAt),
    firstByteMs: firstByteMs === undefined ? undefined : hundredths(firstByteMs),
  });
  context.trace?.attemptEnded(status, error);
}

function hundredths(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit);
}
