import { performance } from 'node:perf_hooks';
import { bookUsage, countedUsage } from '../billing/booked-usage.js';
import { gatewayError } from '../errors/gateway-error.js';
import type { NodeConfig } from '../config/gateway-config.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { StreamMapper } from '../providers/types.js';
import type { MappedBatch, UpstreamEventReader } from '../streaming/upstream-event-reader.js';
import { asNodeFailure } from '../upstream/node-failure.js';
import type { RequestContext } from './request-context.js';
import type { StreamSink } from './stream-sink.js';

const DONE = 'data: [DONE]\n\n';

/** What the relay needs besides the stream itself. */
export interface RelayOptions {
  readonly request: ChatRequest;
  /** The node that is streaming. */
  readonly node: NodeConfig;
  /** Gives the node's concurrency slot back. */
  readonly release: () => void;
  /** Called once the stream's usage is known, before its last bytes go out (the charge is booked there). */
  readonly beforeEnd: () => void;
}

/**
 * Relays a committed stream to the client chunk by chunk, waiting for the client when it
 * is slow. Ends with the usage chunk (the node's, or an estimate when it sent none) and
 * `[DONE]`. A node failure mid-stream, the request deadline or the end of the shutdown
 * grace ends it with the usage so far and one error event, and no retry (spec 8.4,
 * PRODUCT.md decision 4). A client that leaves stops the node's stream at once.
 */
export async function relayStream(
  context: RequestContext,
  reader: UpstreamEventReader,
  first: MappedBatch,
  sink: StreamSink,
  options: RelayOptions,
): Promise<void> {
  const { mapper } = reader;
  context.record.firstByteMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
  try {
    let batch = first;
    while (!batch.done) {
      const pending = sink.write(batch.text);
      if (pending !== undefined) await pending;
      if (context.cancellation.aborted) throw context.cancellation.reason;
      batch = await reader.read();
    }
    const tail = batch.text + missingUsageChunk(context, options.request, mapper) + DONE;
    recordOutcome(context, options.request, mapper);
    options.beforeEnd();
    sink.finish(tail);
  } catch (error) {
    reader.release();
    if (context.cancellation.aborted) {
      // The gateway cut the stream (deadline, shutdown): like a node failure, the client gets
      // the usage so far, then one error event (README "Shutdown", PRODUCT.md decision 4).
      if (context.abortCause !== 'client') {
        void sink.write(missingUsageChunk(context, options.request, mapper));
        sink.fail(context.cancellation.reason);
      }
      return;
    }
    const failure =
      (error as { name?: unknown } | null)?.name === 'TimeoutError'
        ? gatewayError('upstream_timeout', { params: { timeout_ms: options.node.timeouts.totalMs } })
        : asNodeFailure(options.node.id, error);
    const pending = sink.write(missingUsageChunk(context, options.request, mapper));
    recordOutcome(context, options.request, mapper);
    context.record.errorCode = failure.code;
    options.beforeEnd();
    if (pending !== undefined) await pending;
    sink.fail(failure);
  } finally {
    options.release();
    recordOutcome(context, options.request, mapper);
  }
}

function recordOutcome(context: RequestContext, request: ChatRequest, mapper: StreamMapper): void {
  context.record.finishReason = mapper.summary.finishReason;
  bookUsage(context.record, request, mapper.summary);
}

/**
 * The usage chunk the gateway adds when the node sent none it could book (an estimate):
 * the last usage a client reads is always the one booked. Empty when the node's counts are booked.
 */
function missingUsageChunk(context: RequestContext, request: ChatRequest, mapper: StreamMapper): string {
  if (countedUsage(mapper.summary.usage) !== undefined) return '';
  const usage = bookUsage(context.record, request, mapper.summary);
  const { id, created, model } = mapper.identity;
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`;
}
