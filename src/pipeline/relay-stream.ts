import { bookedUsage, type BookedUsage } from '../billing/booked-usage.js';
import { gatewayError } from '../errors/gateway-error.js';
import { asNodeFailure } from '../upstream/node-failure.js';
import type { StreamExecution } from './execute.js';
import type { StreamEnd, StreamSink } from './front-door.js';
import type { RequestContext } from '../context/request-context.js';
import { NO_EVENTS, type StreamEvents } from '../streaming/stream-events.js';
import { fieldOf } from '../validation/field-of.js';

/** What a relayed stream produced: the usage it is booked on and the node's finish reason. */
interface Relayed {
  readonly booked: BookedUsage;
  readonly finishReason: string | undefined;
}

/** How a relayed stream ended: whole, failed after its start (the failure to report), or its client left; with what it produced. */
export type RelayOutcome = Relayed &
  (
    | { readonly kind: 'ended'; readonly end: StreamEnd }
    | {
        readonly kind: 'failed';
        readonly failure: unknown;
        /** The failure's error code, for the usage row. */
        readonly errorCode: string;
        readonly end: StreamEnd;
      }
    | { readonly kind: 'client-gone' }
  );

/**
 * Relays a committed stream to the sink chunk by chunk, waiting for the client when it is
 * slow, and returns its usage: the node's, or an estimate when it sent none or the stream
 * was cut. A node failure mid-stream, the request deadline or the end of the shutdown grace
 * ends it without a retry (spec 8.4, PRODUCT.md decision 4); the front door then writes the
 * usage so far and one error event. A client that leaves stops the node's stream at once.
 * The stream's last bytes are left to the caller, which sends them once the charge is settled.
 * It keeps the prompt's estimated tokens (for a node that sends no usage), not the request.
 */
export async function relayStream(
  context: RequestContext,
  execution: StreamExecution,
  sink: StreamSink,
  promptTokens: number,
): Promise<RelayOutcome> {
  const { reader } = execution;
  try {
    let batch = execution.first;
    while (!batch.done) {
      const pending = sink.write(batch, execution.format);
      if (pending !== undefined) await pending;
      if (context.cancellation.aborted) throw context.cancellation.reason;
      batch = await reader.read();
    }
    const produced = producedBy(execution, promptTokens);
    return { kind: 'ended', ...produced, end: streamEnd(execution, produced.booked, batch) };
  } catch (error) {
    reader.release();
    const produced = producedBy(execution, promptTokens);
    if (context.cancellation.aborted && context.abortCause === 'client') return { kind: 'client-gone', ...produced };
    // The gateway cut the stream (deadline, shutdown), or the node failed.
    const failure = context.cancellation.aborted
      ? context.cancellation.reason
      : fieldOf(error, 'name') === 'TimeoutError'
        ? gatewayError('upstream_timeout', { params: { timeout_ms: execution.node.timeouts.totalMs } })
        : asNodeFailure(execution.node.id, error);
    const code = fieldOf(failure, 'code');
    const errorCode = typeof code === 'string' ? code : 'internal_error';
    return { kind: 'failed', ...produced, failure, errorCode, end: streamEnd(execution, produced.booked) };
  } finally {
    execution.release();
  }
}

/** The stream's usage (the node's, else an estimate of what it streamed) and finish reason, as it stands. */
function producedBy(execution: StreamExecution, promptTokens: number): Relayed {
  const { summary } = execution.reader.mapper;
  return { booked: bookedUsage(promptTokens, summary), finishReason: summary.finishReason };
}

/** How the front door closes the stream. */
function streamEnd(execution: StreamExecution, booked: BookedUsage, lastEvents: StreamEvents = NO_EVENTS): StreamEnd {
  return {
    format: execution.format,
    node: execution.node.id,
    lastEvents,
    usage: booked.usage,
    usageSent: booked.sent,
    identity: execution.reader.mapper.identity,
  };
}
