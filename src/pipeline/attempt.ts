import { performance } from 'node:perf_hooks';
import type { AttemptRecord, RequestContext } from '../context/request-context.js';
import type { NativeRequest, CallContext } from '../providers/types.js';
import { adapterFor } from '../providers/registry.js';
import { withoutReasoningBody } from '../providers/without-reasoning-text.js';
import type { NodeCandidate } from '../routing/router.js';
import { firstByteDeadlineMs } from '../upstream/first-byte-deadline.js';
import { retryAfterHint } from '../upstream/retry-after-hint.js';
import { attemptFailure, type FailedAttempt } from './attempt-failure.js';
import { attemptRecord } from './attempt-record.js';
import { commitStream } from './commit-stream.js';
import type { Execution, ExecuteOptions } from './execute.js';
import type { ReplyFormat } from './front-door.js';
import { headerValue } from './header-value.js';
import { ownCode } from './own-code.js';
import { readErrorBody } from './read-error-body.js';
import { readJsonReply } from './read-json-reply.js';

/** One try of one node: it answered well (the execution to relay), or it failed. */
export type AttemptOutcome =
  { readonly ok: true; readonly execution: Execution; readonly attempt: AttemptRecord } | FailedAttempt;

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
    if (status < 200 || status >= 300) {
      retryAfter = retryAfterHint(headerValue(response.headers['retry-after']));
      const body = await readErrorBody(response, node);
      const contentType = headerValue(response.headers['content-type']);
      throw ownCode(() => adapter.toError(status as number, body, contentType, callContext));
    }
    let execution: Execution;
    if (!options.stream) {
      const text = await readJsonReply(response, node);
      const mapped = ownCode(() => (nativeAdapter ?? adapter).fromUpstream(text, callContext));
      const body = excludeReasoning ? ownCode(() => withoutReasoningBody(mapped.body)) : mapped.body;
      execution = { kind: 'json', format, body, summary: mapped.summary, node };
    } else {
      const { reader, first } = await commitStream(
        response,
        node,
        () => ownCode(() => (nativeAdapter ?? adapter).streamMapper(callContext)),
        excludeReasoning,
      );
      keepSlot = true;
      const release = () => {
        state.release(lease);
        cancellation.release();
      };
      execution = { kind: 'stream', format, reader, first, node, release };
    }
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
