import { invalidReply } from '../../upstream/node-failure.js';
import { inStreamNodeError } from '../classify-node-error.js';
import { ChunkBuilder } from '../chunk-builder.js';
import { isRecord } from '../translate-content.js';
import { parseNodeObject } from '../translated-reply.js';
import type { EmitChunk, SseRecord, StreamMapper, StreamSignal } from '../../streaming/stream-mapper.js';
import { emptySummary, type CallContext } from '../types.js';
import { firstCandidate } from './from-upstream.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapParts } from './map-parts.js';
import { mapUsage, type GeminiUsage } from './map-usage.js';
import { isGenerateContentResponse } from '../../validation/generated/validate-node-replies.js';

/**
 * Gemini `streamGenerateContent?alt=sse` → OpenAI chunks (provider-protocols 5.5, 6.7).
 * Every event is a whole `GenerateContentResponse` with only the new parts: thought text
 * → `delta.reasoning_content`, text → `delta.content`, each `functionCall` → one complete
 * `delta.tool_calls` entry. The chunk with `finishReason` gives the finish chunk. Gemini has
 * no end marker: the body just ends, and only then is the usage chunk sent, from the last
 * `usageMetadata` seen. A body that ends without a finish reason was cut short: a node
 * failure. An `{"error": …}` object in the stream becomes the gateway's error event.
 */
export function createStreamMapper(context: CallContext): StreamMapper {
  const summary = emptySummary();
  const chunks = new ChunkBuilder({
    id: `chatcmpl-${context.requestId}`,
    created: Math.floor(Date.now() / 1000),
    model: context.clientModel,
  });
  let toolCount = 0;
  let usage: GeminiUsage | undefined;
  let finished = false;

  function map(record: SseRecord, emit: EmitChunk): StreamSignal {
    const event = parseNodeObject(record.data, context, 'event');
    if (isRecord(event.error)) {
      const error = event.error;
      const detail = `${typeof error.status === 'string' ? error.status : 'error'}: ${typeof error.message === 'string' ? error.message : 'the node reported an error'}`;
      throw inStreamNodeError(context, detail);
    }
    if (!isGenerateContentResponse(event))
      throw invalidReply(context.node.id, 'sent an event that is not a GenerateContentResponse');
    if (typeof event.responseId === 'string' && !chunks.hasStarted) chunks.identity.id = event.responseId;
    if (event.usageMetadata) usage = event.usageMetadata;
    if (finished) return 'more';
    const candidate = firstCandidate(event);
    const parts = mapParts(
      isRecord(candidate?.content) ? candidate.content.parts : undefined,
      context.requestId,
      () => toolCount++,
    );
    for (const part of parts) {
      if (part.kind === 'reasoning') {
        summary.reasoningCharacters += part.text.length;
        emit(chunks.delta({ reasoning_content: part.text }));
      } else if (part.kind === 'content') {
        summary.contentCharacters += part.text.length;
        emit(chunks.delta({ content: part.text }));
      } else {
        emit(chunks.delta({ tool_calls: [part.call] }));
      }
    }
    const blocked =
      candidate === undefined && isRecord(event.promptFeedback) && typeof event.promptFeedback.blockReason === 'string';
    const finishReason = candidate?.finishReason;
    if (typeof finishReason === 'string' || blocked) {
      finished = true;
      summary.finishReason =
        typeof finishReason === 'string' && !blocked ? mapFinishReason(finishReason, toolCount > 0) : 'content_filter';
      emit(chunks.delta({}, summary.finishReason));
    }
    return 'more';
  }

  function finish(emit: EmitChunk): void {
    if (!finished) throw invalidReply(context.node.id, 'the stream ended without a finish reason');
    if (usage !== undefined) {
      summary.usage = mapUsage(usage);
      emit(chunks.usage(summary.usage));
    }
  }

  return { form: 'chunks', map, finish, summary, identity: chunks.identity };
}
