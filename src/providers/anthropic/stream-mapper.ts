import { invalidReply } from '../../upstream/node-failure.js';
import { inStreamNodeError } from '../classify-node-error.js';
import { ChunkBuilder } from '../chunk-builder.js';
import { isRecord } from '../translate-content.js';
import { parseNodeObject } from '../translated-reply.js';
import type { EmitChunk, SseRecord, StreamMapper, StreamSignal } from '../../streaming/stream-mapper.js';
import { emptySummary, type CallContext } from '../types.js';
import { mapStopReason } from './map-stop-reason.js';
import { mapUsage, mergeUsage, type AnthropicUsage } from './map-usage.js';
import { isMessageDelta, isMessageStart } from '../../validation/generated/validate-node-replies.js';

/** What we remember about one open content block, by its Anthropic index. */
interface OpenBlock {
  readonly type: string;
  /** Tool calls are numbered from 0 for the client, not by Anthropic block index. */
  readonly toolIndex: number;
  thinking: string;
  signature: string;
  data: unknown;
}

/**
 * Anthropic Messages stream → OpenAI chunks (provider-protocols 4.5, 6.7).
 *
 * - `message_start`: identity and input usage; nothing is sent yet, so a node that
 *   fails right after it (an `overloaded_error` event) can still be replaced.
 * - `thinking_delta` → `delta.reasoning_content`; `text_delta` → `delta.content`;
 *   `tool_use` start and `input_json_delta` → `delta.tool_calls` (id and name first, then
 *   argument fragments).
 * - At the end of a thinking or redacted thinking block, one delta carries the whole block
 *   in `thinking_blocks` (with its signature) for the client to send back.
 * - `message_delta`: stop reason and cumulative usage; `message_stop`: the finish chunk,
 *   the usage chunk, end. `ping`, `content_block_stop` of other blocks, `citations_delta`
 *   and unknown events are ignored. `error` becomes the gateway's error event.
 */
export function createStreamMapper(context: CallContext): StreamMapper {
  const summary = emptySummary();
  const chunks = new ChunkBuilder({
    id: `chatcmpl-${context.requestId}`,
    created: Math.floor(Date.now() / 1000),
    model: context.clientModel,
  });
  const blocks = new Map<number, OpenBlock>();
  const usage: AnthropicUsage = {};
  let toolCount = 0;
  let stopReason: unknown;
  let sawThinking = false;

  function map(record: SseRecord, emit: EmitChunk): StreamSignal {
    const event = parseNodeObject(record.data, context, 'event');
    const type = typeof event.type === 'string' ? event.type : record.event;
    switch (type) {
      case 'message_start': {
        if (!isMessageStart(event)) throw invalidReply(context.node.id, 'sent a message_start without its message');
        const message = event.message;
        if (typeof message.id === 'string' && !chunks.hasStarted) chunks.identity.id = message.id;
        mergeUsage(usage, message.usage);
        return 'more';
      }
      case 'content_block_start':
        startBlock(event, emit);
        return 'more';
      case 'content_block_delta':
        applyDelta(event, emit);
        return 'more';
      case 'content_block_stop':
        stopBlock(event, emit);
        return 'more';
      case 'message_delta':
        if (!isMessageDelta(event)) throw invalidReply(context.node.id, 'sent a message_delta that is not one');
        if (event.delta?.stop_reason !== undefined && event.delta.stop_reason !== null)
          stopReason = event.delta.stop_reason;
        mergeUsage(usage, event.usage);
        return 'more';
      case 'message_stop': {
        const finishReason = mapStopReason(stopReason);
        summary.finishReason = finishReason;
        emit(chunks.delta({}, finishReason));
        summary.usage = mapUsage(usage, sawThinking);
        if (typeof usage.service_tier === 'string') summary.serviceTier = usage.service_tier;
        emit(chunks.usage(summary.usage));
        return 'end';
      }
      case 'error': {
        const error = isRecord(event.error) ? event.error : {};
        const detail = `${typeof error.type === 'string' ? error.type : 'error'}: ${typeof error.message === 'string' ? error.message : 'the node reported an error'}`;
        throw inStreamNodeError(context, detail);
      }
      default:
        // `ping` and event types added later (the API may add new ones): nothing to send.
        return 'more';
    }
  }

  function startBlock(event: Record<string, unknown>, emit: EmitChunk): void {
    const index = typeof event.index === 'number' ? event.index : -1;
    const block = isRecord(event.content_block) ? event.content_block : {};
    const type = typeof block.type === 'string' ? block.type : 'unknown';
    const open: OpenBlock = {
      type,
      toolIndex: type === 'tool_use' ? toolCount++ : -1,
      thinking: '',
      signature: '',
      data: block.data,
    };
    blocks.set(index, open);
    if (type === 'thinking' || type === 'redacted_thinking') sawThinking = true;
    if (type === 'tool_use') {
      emit(
        chunks.delta({
          tool_calls: [
            { index: open.toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } },
          ],
        }),
      );
    } else if (type === 'text' && typeof block.text === 'string' && block.text !== '') {
      sendText(block.text, emit);
    } else if (type === 'thinking' && typeof block.thinking === 'string' && block.thinking !== '') {
      sendThinking(open, block.thinking, emit);
    }
  }

  function applyDelta(event: Record<string, unknown>, emit: EmitChunk): void {
    const delta = isRecord(event.delta) ? event.delta : {};
    const open = blocks.get(typeof event.index === 'number' ? event.index : -1);
    switch (delta.type) {
      case 'text_delta':
        if (typeof delta.text === 'string' && delta.text !== '') sendText(delta.text, emit);
        break;
      case 'thinking_delta':
        if (open !== undefined && typeof delta.thinking === 'string' && delta.thinking !== '')
          sendThinking(open, delta.thinking, emit);
        break;
      case 'signature_delta':
        // Arrives once, just before the block ends; replaces, never appends.
        if (open !== undefined && typeof delta.signature === 'string') open.signature = delta.signature;
        break;
      case 'input_json_delta':
        if (open !== undefined && typeof delta.partial_json === 'string' && delta.partial_json !== '') {
          emit(chunks.delta({ tool_calls: [{ index: open.toolIndex, function: { arguments: delta.partial_json } }] }));
        }
        break;
      default:
        // citations_delta and future delta types carry nothing the client can use.
        break;
    }
  }

  function stopBlock(event: Record<string, unknown>, emit: EmitChunk): void {
    const index = typeof event.index === 'number' ? event.index : -1;
    const open = blocks.get(index);
    blocks.delete(index);
    if (open?.type === 'thinking') {
      emit(
        chunks.delta({ thinking_blocks: [{ type: 'thinking', thinking: open.thinking, signature: open.signature }] }),
      );
    } else if (open?.type === 'redacted_thinking') {
      emit(chunks.delta({ thinking_blocks: [{ type: 'redacted_thinking', data: open.data }] }));
    }
  }

  function sendText(text: string, emit: EmitChunk): void {
    summary.contentCharacters += text.length;
    emit(chunks.delta({ content: text }));
  }

  function sendThinking(open: OpenBlock, text: string, emit: EmitChunk): void {
    open.thinking += text;
    summary.reasoningCharacters += text.length;
    emit(chunks.delta({ reasoning_content: text }));
  }

  function finish(): void {
    // The body ended without message_stop: the stream was cut (provider-protocols 4.5).
    throw invalidReply(context.node.id, 'the stream ended before message_stop');
  }

  return { form: 'chunks', map, finish, summary, identity: chunks.identity };
}
