import { gatewayError } from '../../errors/gateway-error.js';
import type { ChatCompletionChunk } from '../../protocol/openai/chat-response-types.js';
import { emptySummary, type CallContext, type SseRecord, type StreamMapper, type StreamSignal } from '../types.js';
import { normalizeReasoningField } from './normalize-reasoning-field.js';
import { modelField, replaceModelField } from './replace-model-field.js';

/**
 * OpenAI-protocol stream → client chunks. Every event is parsed (usage, reasoning field,
 * in-stream errors); an event that needed no change is forwarded as the node's own text.
 */
export function createStreamMapper(context: CallContext): StreamMapper {
  const summary = emptySummary();
  const identity = { id: '', created: Math.floor(Date.now() / 1000), model: context.clientModel };
  const clientModelField = modelField(context.clientModel);
  let nodeModel = '';
  let nodeModelField = '';

  function map(record: SseRecord, emit: (chunkJson: string) => void): StreamSignal {
    const data = record.data;
    if (data === '[DONE]') return 'end';
    let chunk: ChatCompletionChunk & { error?: unknown };
    try {
      chunk = JSON.parse(data) as ChatCompletionChunk & { error?: unknown };
    } catch {
      throw gatewayError('bad_gateway', { params: { reason: `node ${context.node.id} sent an event that is not JSON` }, upstream: { nodeId: context.node.id } });
    }
    if (record.event === 'error' || (chunk !== null && typeof chunk === 'object' && chunk.error)) {
      throw inStreamError(chunk.error ?? chunk, context);
    }
    if (identity.id === '' && typeof chunk.id === 'string') {
      identity.id = chunk.id;
      if (typeof chunk.created === 'number') identity.created = chunk.created;
    }
    let changed = false;
    if (Array.isArray(chunk.choices)) {
      for (const choice of chunk.choices) {
        const delta = choice?.delta;
        if (delta !== null && typeof delta === 'object') {
          if (normalizeReasoningField(delta)) changed = true;
          if (typeof delta.content === 'string') summary.contentCharacters += delta.content.length;
          if (typeof delta.reasoning_content === 'string') summary.reasoningCharacters += delta.reasoning_content.length;
        }
        if (choice?.finish_reason) summary.finishReason ??= choice.finish_reason;
      }
    }
    if (chunk.usage) summary.usage = chunk.usage;
    if (changed) {
      chunk.model = context.clientModel;
      emit(JSON.stringify(chunk));
    } else if (typeof chunk.model === 'string' && chunk.model !== context.clientModel) {
      // The client sees the model id it asked for.
      if (chunk.model !== nodeModel) {
        nodeModel = chunk.model;
        nodeModelField = modelField(nodeModel);
      }
      emit(replaceModelField(data, nodeModelField, clientModelField) ?? JSON.stringify({ ...chunk, model: context.clientModel }));
    } else {
      emit(data);
    }
    return 'more';
  }

  return { map, summary, identity };
}

/** A node's `{"error": …}` event mid-stream: reported to the client as the gateway's error event. */
function inStreamError(error: unknown, context: CallContext) {
  const message =
    error !== null && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string'
      ? (error as { message: string }).message
      : 'the node reported an error';
  return gatewayError('bad_gateway', {
    params: { reason: `node ${context.node.id}: ${message}` },
    upstream: { nodeId: context.node.id },
  });
}
