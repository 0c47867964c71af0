import { performance } from 'node:perf_hooks';
import type { AttemptRecord, RequestContext } from '../context/request-context.js';
import type { CallContext, NativeAdapter, ProviderAdapter, UpstreamCall } from '../providers/types.js';
import { adapterFor } from '../providers/registry.js';
import { withoutReasoningBody } from '../providers/without-reasoning-text.js';
import type { NodeCandidate } from '../routing/router.js';
import { firstByteDeadlineMs } from '../upstream/first-byte-deadline.js';
import { retryAfterHint } from '../upstream/retry-after-hint.js';
import type { UpstreamResponse } from '../upstream/upstream-call.js';
import { attemptFailure, type FailedAttempt } from './attempt-failure.js';
import { attemptRecord } from './attempt-record.js';
import { commitStream } from './commit-stream.js';
import type { Execution, ExecuteOptions, StreamExecution } from './execute.js';
import type { ReplyFormat } from './front-door.js';
import { headerValue } from './header-value.js';
import { ownCode } from './own-code.js';
import { readErrorBody } from './read-error-body.js';
import { readJsonReply } from './read-json-reply.js';

/** One try of one node: it answered well (the execution to relay), or it failed. */
export type AttemptOutcome =
  { readonly ok: true; readonly execution: Execution; readonly attempt: AttemptRecord } | FailedAttempt;

/** How one node is asked: the request in its protocol, and the mapper of its reply. */
interface NodeExchange {
  readonly callContext: CallContext;
  /** Builds the node request (the gateway's own code). */
  readonly upstreamCall: () => UpstreamCall;
  /** Maps the node's reply: the client's own protocol passed through, or the node's adapter. */
  readonly replies: ProviderAdapter | NativeAdapter;
  /** Classifies the node's error replies. */
  readonly adapter: ProviderAdapter;
  readonly format: ReplyFormat;
  /** `reasoning.exclude` (PRODUCT.md decision 19): the reply goes out without reasoning text, billed with it. */
  readonly excludeReasoning: boolean;
}

/**
 * Tries one node, holding its concurrency slot (`lease`) until the attempt is over, or for
 * a committed stream until its relay is: the request in the node's protocol (the client's
 * own when the node serves it natively, decision 15), the node's reply mapped back (a JSON
 * body, or a stream up to its first events). Never throws: a failure is an outcome.
 */
export async function attempt(
  context: RequestContext,
  options: ExecuteOptions,
  candidate: NodeCandidate,
  lease: 'slot' | 'probe',
): Promise<AttemptOutcome> {
  const { node, state } = candidate;
  const started = performance.now();
  const exchange = nodeExchange(context, options, candidate);
  context.trace?.startAttempt(exchange.callContext, options.request);
  const cancellation =
    node.timeouts.totalMs < options.totalTimeoutMs
      ? context.cancellation.withTimeout(node.timeouts.totalMs)
      : context.cancellation;
  let status: number | undefined;
  let firstByteMs: number | undefined;
  let retryAfter: number | undefined;
  let keepSlot = false;
  try {
    const upstreamCall = ownCode(exchange.upstreamCall);
    context.trace?.injectInto(upstreamCall.headers);
    /** The most output the request allows, every choice together. */
    const outputTokens = options.outputCap.tokens * (options.request.n ?? 1);
    const response = await candidate.client.send(
      upstreamCall,
      cancellation,
      options.stream
        ? undefined
        : firstByteDeadlineMs(node.timeouts, outputTokens, Math.min(node.timeouts.totalMs, options.totalTimeoutMs)),
    );
    status = response.statusCode;
    firstByteMs = performance.now() - started;
    if (status < 200 || status >= 300) {
      retryAfter = retryAfterHint(headerValue(response.headers['retry-after']));
      throw await nodeError(response, candidate, exchange);
    }
    let execution: Execution;
    if (options.stream) {
      execution = await streamExecution(response, candidate, exchange, () => {
        state.release(lease);
        cancellation.release();
      });
      keepSlot = true;
    } else execution = await jsonExecution(response, candidate, exchange);
    state.recordSuccess(firstByteMs);
    context.trace?.attemptAnswered(execution);
    return { ok: true, execution, attempt: attemptRecord(context, node.id, started, { status, firstByteMs }) };
  } catch (error) {
    return attemptFailure(context, options, candidate, { started, status, firstByteMs, retryAfter }, error);
  } finally {
    if (!keepSlot) {
      state.release(lease);
      cancellation.release();
    }
  }
}

/** How the candidate is asked: natively when it serves the client's own protocol (decision 15), else through its adapter. */
function nodeExchange(context: RequestContext, options: ExecuteOptions, candidate: NodeCandidate): NodeExchange {
  const { node } = candidate;
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
    streamForm: options.frontDoor === 'chat' && options.request.reasoning?.exclude !== true ? 'text' : 'chunks',
    retryOnStatus: options.retryOnStatus,
  };
  const adapter = adapterFor(node.protocol);
  const { native } = options;
  const nativeAdapter =
    native !== undefined && node.nativeApis.has(native.api) ? adapter.native?.[native.api] : undefined;
  if (native === undefined || nativeAdapter === undefined)
    return {
      callContext,
      upstreamCall: () => adapter.toUpstream(options.request, callContext),
      replies: adapter,
      adapter,
      format: 'internal',
      excludeReasoning: options.request.reasoning?.exclude === true,
    };
  return {
    callContext,
    upstreamCall: () => nativeAdapter.toUpstream(native, callContext),
    replies: nativeAdapter,
    adapter,
    format: 'native',
    excludeReasoning: false,
  };
}

/** A node's non-2xx reply as the failure it is (retryable, or the node's client error passed through). */
async function nodeError(
  response: UpstreamResponse,
  candidate: NodeCandidate,
  exchange: NodeExchange,
): Promise<unknown> {
  const body = await readErrorBody(response, candidate.node);
  const contentType = headerValue(response.headers['content-type']);
  return ownCode(() => exchange.adapter.toError(response.statusCode, body, contentType, exchange.callContext));
}

/** A node's JSON reply, read within its cap and mapped back. */
async function jsonExecution(
  response: UpstreamResponse,
  candidate: NodeCandidate,
  exchange: NodeExchange,
): Promise<Execution> {
  const { node } = candidate;
  const text = await readJsonReply(response, node);
  const mapped = ownCode(() => exchange.replies.fromUpstream(text, exchange.callContext));
  const body = exchange.excludeReasoning ? ownCode(() => withoutReasoningBody(mapped.body)) : mapped.body;
  return { kind: 'json', format: exchange.format, body, summary: mapped.summary, node };
}

/** A node's stream committed at its first events; `release` gives its slot back once relayed. */
async function streamExecution(
  response: UpstreamResponse,
  candidate: NodeCandidate,
  exchange: NodeExchange,
  release: () => void,
): Promise<StreamExecution> {
  const { node } = candidate;
  const { reader, first } = await commitStream(
    response,
    node,
    () => ownCode(() => exchange.replies.streamMapper(exchange.callContext)),
    exchange.excludeReasoning,
  );
  return { kind: 'stream', format: exchange.format, reader, first, node, release };
}
