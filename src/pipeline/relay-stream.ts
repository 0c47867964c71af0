import { performance } from 'node:perf_hooks';
import { bookUsage, countedUsage } from '../billing/booked-usage.js';
import { gatewayError } from '../errors/gateway-error.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { asNodeFailure } from '../upstream/node-failure.js';
import type { StreamExecution } from './execute.js';
import type { StreamEnd, StreamSink } from './front-door.js';
import type { RequestContext } from '../context/request-context.js';
import { fieldOf } from '../validation/field-of.js';

/** How a relayed stream ended: whole, failed after its start (the failure to report), or its client left. */
export type RelayOutcome =
  | { readonly kind: 'ended'; readonly end: StreamEnd }
  | { readonly kind: 'failed'; readonly failure: unknown; readonly end: StreamEnd }
  | { readonly kind: 'client-gone' };

/**
 * Relays a committed stream to the sink chunk by chunk, waiting for the client when it is
 * slow, and books its usage in the request record: the node's, or an estimate when it sent
 * none or the stream was cut. A node failure mid-stream, the request deadline or the end
 * of the shutdown grace ends it without a retry (spec 8.4, PRODUCT.md decision 4); the
 * front door then writes the usage so far and one error event. A client that leaves stops
 * the node's stream at once. The stream's last bytes are left to the caller, which sends
 * them once the charge is settled.
 */
export async function relayStream(
  context: RequestContext,
  execution: StreamExecution,
  sink: StreamSink,
  request: ChatRequest,
): Promise<RelayOutcome> {
  const { reader } = execution;
  context.record.firstByteMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
  try {
    let batch = execution.first;
    while (!batch.done) {
      const pending = sink.write(batch.text, execution.format);
      if (pending !== undefined) await pending;
      if (context.cancellation.aborted) throw context.cancellation.reason;
      batch = await reader.read();
    }
    return { kind: 'ended', end: streamEnd(context, execution, request, batch.text) };
  } catch (error) {
    reader.release();
    if (context.cancellation.aborted && context.abortCause === 'client') {
      streamEnd(context, execution, request);
      return { kind: 'client-gone' };
    }
    // The gateway cut the stream (deadline, shutdown), or the node failed.
    const failure = context.cancellation.aborted
      ? context.cancellation.reason
      : fieldOf(error, 'name') === 'TimeoutError'
        ? gatewayError('upstream_timeout', { params: { timeout_ms: execution.node.timeouts.totalMs } })
        : asNodeFailure(execution.node.id, error);
    const code = fieldOf(failure, 'code');
    context.record.errorCode = typeof code === 'string' ? code : 'internal_error';
    return { kind: 'failed', failure, end: streamEnd(context, execution, request) };
  } finally {
    execution.release();
  }
}

/** Books the stream's usage in the record and says how the front door closes it. */
function streamEnd(
  context: RequestContext,
  execution: StreamExecution,
  request: ChatRequest,
  lastEvents = '',
): StreamEnd {
  const { summary, identity } = execution.reader.mapper;
  context.record.finishReason = summary.finishReason;
  const usage = bookUsage(context.record, request, summary);
  return {
    format: execution.format,
    node: execution.node.id,
    lastEvents,
    usage,
    usageSent: countedUsage(summary.usage) !== undefined,
    identity,
  };
}
