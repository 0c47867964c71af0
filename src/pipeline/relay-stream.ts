import { performance } from 'node:perf_hooks';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { estimateUsage } from '../streaming/estimate-usage.js';
import type { MappedBatch, UpstreamEventReader } from '../streaming/upstream-event-reader.js';
import { asGatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from './request-context.js';
import type { StreamSink } from './stream-sink.js';

const DONE = 'data: [DONE]\n\n';

/**
 * Relays a committed stream to the client chunk by chunk, waiting for the client when it
 * is slow. Ends with the usage chunk (the node's, or an estimate when it sent none) and
 * `[DONE]`; a node failure mid-stream ends it with one error event and no retry
 * (spec 8.4). A client that leaves stops the node's stream at once.
 */
export async function relayStream(
  context: RequestContext,
  request: ChatRequest,
  reader: UpstreamEventReader,
  first: MappedBatch,
  sink: StreamSink,
): Promise<void> {
  const summary = reader.mapper.summary;
  context.record.firstByteMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
  try {
    let batch = first;
    while (!batch.done) {
      const pending = sink.write(batch.text);
      if (pending !== undefined) await pending;
      if (context.signal.aborted) throw context.signal.reason;
      batch = await reader.read();
    }
    let tail = batch.text;
    if (summary.usage === undefined) {
      summary.usage = estimateUsage(request, summary);
      context.record.usageEstimated = true;
      const { id, created, model } = reader.mapper.identity;
      tail += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: summary.usage })}\n\n`;
    }
    sink.finish(tail + DONE);
  } catch (error) {
    reader.release();
    if (context.signal.aborted) {
      if (context.abortCause === 'deadline') sink.fail(asGatewayError(context.signal.reason));
      return;
    }
    sink.fail(asGatewayError(error));
  } finally {
    context.record.usage = summary.usage ?? estimateUsage(request, summary);
    if (summary.usage === undefined) context.record.usageEstimated = true;
    context.record.finishReason = summary.finishReason;
  }
}
