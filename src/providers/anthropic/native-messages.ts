import { modelField, replaceModelField } from '../replace-model-field.js';
import { gatewayError } from '../../errors/gateway-error.js';
import { isEnvelope } from '../../protocol/anthropic/gateway-artifact.js';
import { invalidReply } from '../../upstream/node-failure.js';
import { inStreamNodeError } from '../classify-node-error.js';
import { withoutNodeSecret } from '../redact-node-secret.js';
import { isRecord } from '../translate-content.js';
import { parseNodeObject } from '../translated-reply.js';
import {
  emptySummary,
  type CallContext,
  type MappedCompletion,
  type NativeAdapter,
  type NativeRequest,
  type ReplySummary,
  type UpstreamCall,
} from '../types.js';
import type { EmitChunk, SseRecord, StreamMapper, StreamSignal, WriteText } from '../../streaming/stream-mapper.js';
import { mapStopReason } from './map-stop-reason.js';
import { mapUsage, mergeUsage, serverToolCallsOf, type AnthropicUsage } from './map-usage.js';
import {
  isAnthropicMessage,
  isMessageDelta,
  isMessageStart,
} from '../../validation/generated/validate-node-replies.js';
import { FALLBACK_MAX_TOKENS, nodeHeaders } from './to-upstream.js';
import { isStrictVersion, SAMPLING_FIELDS } from './api-version.js';

/**
 * Client headers that reach an Anthropic node unchanged (PRODUCT.md decision 16;
 * inbound-protocols 1.2). Not `anthropic-version`: a node is sent its own
 * (`anthropic_version`), and the body is made to fit it.
 */
export const FORWARDED_HEADERS = ['anthropic-beta', 'anthropic-workspace-id', 'anthropic-user-profile-id'] as const;

/** A thinking or redacted thinking block whose signature or data is a Switchyard envelope. */
function mintedByGateway(block: Record<string, unknown>): boolean {
  return isEnvelope(
    block.type === 'thinking' ? block.signature : block.type === 'redacted_thinking' ? block.data : undefined,
  );
}

/**
 * Thinking blocks Anthropic did not make (the gateway's envelopes of another node's
 * reasoning) are removed before a history reaches an Anthropic node: it refuses them
 * (rule A16). The body is otherwise the client's, object for object; messages without
 * such a block are not copied.
 */
function withoutForeignThinking(messages: unknown): unknown {
  if (!Array.isArray(messages) || !messages.some(carriesForeignThinking)) return messages;
  return messages.map((message: unknown) =>
    carriesForeignThinking(message)
      ? { ...message, content: message.content.filter((block) => !(isRecord(block) && mintedByGateway(block))) }
      : message,
  );
}

function carriesForeignThinking(message: unknown): message is Record<string, unknown> & { content: unknown[] } {
  return (
    isRecord(message) &&
    message.role === 'assistant' &&
    Array.isArray(message.content) &&
    message.content.some((block) => isRecord(block) && mintedByGateway(block))
  );
}

/**
 * The client's Messages request to an Anthropic node, natively (inbound-protocols 3.4;
 * PRODUCT.md decisions 15, 20, 21): the body as the client sent it, but `model` (the
 * node's name for it) and `max_tokens` (the cap the reservation was priced on), and
 * without thinking blocks minted by the gateway, and without sampling fields for a node on
 * API version 2026-10-21; `anthropic-beta` and the other `anthropic-*` client headers
 * forwarded as they are, but `anthropic-version`: the node's own; the node's key, never
 * the client's.
 */
export function nativeMessagesToUpstream(request: NativeRequest, context: CallContext): UpstreamCall {
  const cap = context.outputCap;
  const maxTokens = cap.contextBound ? Math.min(cap.tokens, FALLBACK_MAX_TOKENS) : cap.tokens;
  const body: Record<string, unknown> = {
    ...request.body,
    model: context.upstreamModel,
    max_tokens: maxTokens,
    messages: withoutForeignThinking(request.body.messages),
  };
  if (context.stream) body.stream = true;
  else delete body.stream;
  // API version 2026-10-21 refuses sampling fields at any value (the door refused the content it refuses).
  if (isStrictVersion(context.node)) for (const field of SAMPLING_FIELDS) delete body[field];
  const headers = nodeHeaders(context);
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined && value !== '') headers[name] = value;
  }
  return { path: '/messages', headers, body: JSON.stringify(body), stream: context.stream };
}

/** The summary of a Messages reply or stream: usage in chat terms (cache reads and writes apart), the finish. */
function summarize(summary: ReplySummary, usage: AnthropicUsage, stopReason: unknown, sawThinking: boolean): void {
  summary.usage = mapUsage(usage, sawThinking);
  summary.finishReason = mapStopReason(stopReason);
  // Priced apart from tokens when the model allows them (docs/keys-and-money.md).
  const calls = serverToolCallsOf(usage);
  if (calls !== undefined) summary.serverToolCalls = calls;
  if (typeof usage.service_tier === 'string') summary.serviceTier = usage.service_tier;
}

/** A node's Messages reply, for the client as it is but the model id (the client's); its usage read for billing. */
export function nativeMessagesFromUpstream(bodyText: string, context: CallContext): MappedCompletion {
  const reply = parseNodeObject(bodyText, context, 'reply');
  if (reply.type !== 'message' || !isAnthropicMessage(reply))
    throw invalidReply(context.node.id, 'the reply is not an Anthropic message');
  const summary = emptySummary();
  let sawThinking = false;
  for (const block of reply.content) {
    if (!isRecord(block)) continue;
    if (typeof block.text === 'string') summary.contentCharacters += block.text.length;
    if (typeof block.thinking === 'string') summary.reasoningCharacters += block.thinking.length;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') sawThinking = true;
  }
  summarize(summary, reply.usage ?? {}, reply.stop_reason, sawThinking);
  if (reply.model === context.clientModel) return { body: bodyText, summary };
  // The client's model id swapped in the node's text (its own fields come before `content`).
  const swapped =
    typeof reply.model === 'string'
      ? replaceModelField(bodyText, modelField(reply.model), modelField(context.clientModel), '"content"')
      : undefined;
  if (swapped !== undefined) return { body: swapped, summary };
  reply.model = context.clientModel;
  return { body: JSON.stringify(reply), summary };
}

/**
 * A node's Messages stream, relayed to a Messages client event by event (inbound-protocols
 * 3.4): each event goes out as the node framed it (`event:` and `data:`), only
 * `message_start` rewritten (the client's model id) and held back until the next event
 * (so a node that fails right after it can still be replaced: no byte has gone out). Usage
 * is read from `message_start` and `message_delta` (cumulative, PRODUCT.md decision 21);
 * only those, `message_stop` and `error` events are parsed.
 */
export function createNativeMessagesRelay(context: CallContext): StreamMapper {
  const summary = emptySummary();
  const identity = { id: '', created: Math.floor(Date.now() / 1000), model: context.clientModel };
  const usage: AnthropicUsage = {};
  let stopReason: unknown;
  let sawThinking = false;
  let heldStart: string | undefined;

  function frame(type: string, data: string): string {
    return `event: ${type}\ndata: ${data}\n\n`;
  }

  function map(record: SseRecord, _emit: EmitChunk, write: WriteText): StreamSignal {
    const type = record.event ?? typeOf(record.data);
    switch (type) {
      case 'message_start': {
        const event = parseNodeObject(record.data, context, 'event');
        if (!isMessageStart(event)) throw invalidReply(context.node.id, 'sent a message_start without its message');
        if (typeof event.message.id === 'string') identity.id = event.message.id;
        mergeUsage(usage, event.message.usage);
        const message: Record<string, unknown> = event.message;
        message.model = context.clientModel;
        heldStart = frame(type, JSON.stringify(event));
        return 'more';
      }
      case 'ping':
        // Held with message_start: a ping alone does not commit the stream to this node.
        if (heldStart !== undefined) heldStart += frame(type, record.data);
        else write(frame(type, record.data));
        return 'more';
      case 'error': {
        const event = parseNodeObject(record.data, context, 'event');
        const error = isRecord(event.error) ? event.error : {};
        const failure = inStreamNodeError(
          context,
          `${typeof error.type === 'string' ? error.type : 'error'}: ${typeof error.message === 'string' ? error.message : 'the node reported an error'}`,
        );
        // The node's own event, for a Messages client after the first byte (inbound-protocols 3.4).
        throw gatewayError('bad_gateway', {
          params: failure.params,
          upstream: {
            nodeId: context.node.id,
            protocol: 'anthropic',
            body: Buffer.from(withoutNodeSecret(record.data, context.node)),
          },
        });
      }
      case 'message_delta': {
        const event = parseNodeObject(record.data, context, 'event');
        if (!isMessageDelta(event)) throw invalidReply(context.node.id, 'sent a message_delta that is not one');
        if (event.delta?.stop_reason !== undefined && event.delta.stop_reason !== null)
          stopReason = event.delta.stop_reason;
        mergeUsage(usage, event.usage);
        summarize(summary, usage, stopReason, sawThinking);
        break;
      }
      case 'content_block_start':
        if (record.data.includes('"thinking"') || record.data.includes('"redacted_thinking"')) sawThinking = true;
        break;
      case 'content_block_delta':
        // Characters for an estimate if the stream is cut; the event is not parsed.
        if (record.data.includes('"thinking_delta"')) summary.reasoningCharacters += record.data.length - 70;
        else summary.contentCharacters += Math.max(0, record.data.length - 70);
        break;
      default:
        break;
    }
    const held = heldStart ?? '';
    heldStart = undefined;
    write(held + frame(type ?? 'message', record.data));
    if (type === 'message_stop') {
      summarize(summary, usage, stopReason, sawThinking);
      return 'end';
    }
    return 'more';
  }

  function finish(): void {
    throw invalidReply(context.node.id, 'the stream ended before message_stop');
  }

  return { form: 'text', map, finish, summary, identity };
}

/** The `type` of an event the node sent without an `event:` line. */
function typeOf(data: string): string | undefined {
  const match = /"type"\s*:\s*"([a-z_]+)"/.exec(data.slice(0, 64));
  return match?.[1];
}

/** The Anthropic protocol's native Messages path (the seam's NativeAdapter for `messages`). */
export const anthropicNativeMessages: NativeAdapter = {
  toUpstream: nativeMessagesToUpstream,
  fromUpstream: nativeMessagesFromUpstream,
  streamMapper: createNativeMessagesRelay,
};
