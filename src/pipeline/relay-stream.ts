import { performance } from 'node:perf_hooks';
import { gatewayError } from '../errors/gateway-error.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { ReplySummary, StreamMapper } from '../providers/types.js';
import { estimateUsage } from '../streaming/estimate-usage.js';
import type { MappedBatch, UpstreamEventReader } from '../streaming/upstream-event-reader.js';
import { asNodeFailure } from '../upstream/node-failure.js';
import type { RequestContext } from './request-context.js';
import type { StreamSink } from './stream-sink.js';

const DONE = 'data: [DONE]\n\n';

/** What the relay needs besides the stream itself. */
export interface RelayOptions {
  readonly request: ChatRequest;
  readonly nodeId: string;
  readonly nodeTotalMs: number;
  /** Gives the node's concurrency slot back. */
  readonly release: () => void;
}

/**
 * Relays a committed stream to the client chunk by chunk, waiting for the client when it
 * is slow. Ends with the usage chunk (the node's, or an estimate when it sent none) and
 * `[DONE]`. A node failure mid-stream ends it with the usage so far and one error event,
 * and no retry (spec 8.4, PRODUCT.md decision 4). A client that leaves stops the node's
 * stream at once.
 */
export async function relayStream(
  context: RequestContext,
  reader: UpstreamEventReader,
  first: MappedBatch,
  sink: StreamSink,
  options: RelayOptions,
): Promise<void> {
  const { mapper } = reader;
  const summary = mapper.summary;
  context.record.firstByteMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
  try {
    let batch = first;
    while (!batch.done) {
      const pending = sink.write(batch.text);
      if (pending !== undefined) await pending;
      if (context.signal.aborted) throw context.signal.reason;
      batch = await reader.read();
    }
    const usageChunk = summary.usage === undefined ? estimatedUsageChunk(context, options.request, mapper) : '';
    sink.finish(batch.text + usageChunk + DONE);
  } catch (error) {
    reader.release();
    if (context.signal.aborted) {
      if (context.abortCause === 'deadline') sink.fail(context.signal.reason);
      return;
    }
    const failure =
      (error as { name?: unknown } | null)?.name === 'TimeoutError'
        ? gatewayError('upstream_timeout', { params: { timeout_ms: options.nodeTotalMs } })
        : asNodeFailure(options.nodeId, error);
    const usageChunk = summary.usage === undefined ? estimatedUsageChunk(context, options.request, mapper) : '';
    const pending = sink.write(usageChunk);
    if (pending !== undefined) await pending;
    sink.fail(failure);
  } finally {
    options.release();
    context.record.finishReason = summary.finishReason;
    recordUsage(context, options.request, summary);
  }
}

/** The usage chunk the gateway adds when the node sent none, marked as an estimate. */
function estimatedUsageChunk(context: RequestContext, request: ChatRequest, mapper: StreamMapper): string {
  mapper.summary.usage = estimateUsage(request, mapper.summary);
  context.record.usageEstimated = true;
  const { id, created, model } = mapper.identity;
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: mapper.summary.usage })}\n\n`;
}

function recordUsage(context: RequestContext, request: ChatRequest, summary: ReplySummary): void {
  if (summary.usage === undefined) {
    summary.usage = estimateUsage(request, summary);
    context.record.usageEstimated = true;
  }
  context.record.usage = summary.usage;
}
