import { withoutNodeSecret } from '../redact-node-secret.js';
import type { Usage } from '../../protocol/openai/chat-response-types.js';
import { parseNodeObject } from '../translated-reply.js';
import { invalidReply } from '../../upstream/node-failure.js';
import { isRecord } from '../../validation/is-record.js';
import { isNodeResponse, isResponseEvent } from '../../validation/generated/validate-node-replies.js';
import type { NodeResponse } from './response-schema.js';
import { modelField, replaceModelField } from '../replace-model-field.js';
import { nodeHeaders } from './to-upstream.js';
import { pricedServerTool } from '../../billing/priced-node-features.js';
import {
  emptySummary,
  type CallContext,
  type MappedCompletion,
  type NativeAdapter,
  type NativeRequest,
  type ReplySummary,
  type UpstreamCall,
} from '../types.js';
import type { EmitChunk, SseRecord, StreamMapper, WriteText } from '../../streaming/stream-mapper.js';

type Item = Record<string, unknown>;

/** Lifecycle events carry the whole Response; the terminal ones end the stream. */
const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * The Responses API passed through to an OpenAI-protocol node configured
 * `apis: [chat, responses]` (OpenAI, vLLM; PRODUCT.md decision 15): the client's body
 * unchanged except `model` and the reserved output cap (`max_output_tokens`, decision 20);
 * the node's reply and events unchanged except the client's model id; the usage read from
 * the Response (inbound-protocols 3.9) for booking.
 */
export const nativeResponsesAdapter: NativeAdapter = {
  toUpstream(request: NativeRequest, context: CallContext): UpstreamCall {
    const body: Item = { ...request.body, model: context.upstreamModel };
    if (!context.outputCap.contextBound) body.max_output_tokens = context.outputCap.tokens;
    if (context.stream) body.stream = true;
    else delete body.stream;
    return { path: '/responses', headers: nodeHeaders(context), body: JSON.stringify(body), stream: context.stream };
  },

  fromUpstream(bodyText: string, context: CallContext): MappedCompletion {
    const response = parseNodeObject(bodyText, context, 'reply');
    if (!isNodeResponse(response)) throw invalidReply(context.node.id, 'the reply is not a Response');
    const summary = emptySummary();
    summarize(response, summary);
    return { body: withClientModel(bodyText, response, response, context.clientModel), summary };
  },

  streamMapper(context: CallContext): StreamMapper {
    const summary = emptySummary();
    const identity = { id: '', created: Math.floor(Date.now() / 1000), model: context.clientModel };
    return {
      form: 'text',
      summary,
      identity,
      map(record: SseRecord, _emit: EmitChunk, write: WriteText) {
        const name = record.event === undefined ? '' : `event: ${record.event}\n`;
        // Only lifecycle events name the model (and carry usage): the deltas pass as they came.
        if (!record.data.includes('"response":{')) {
          countDelta(record.data, summary);
          // A node's error event reaches the client: without the node's key (issue 28, finding 12).
          const data = record.event === 'error' ? withoutNodeSecret(record.data, context.node) : record.data;
          write(`${name}data: ${data}\n\n`);
          return 'more';
        }
        const event = parseNodeObject(record.data, context, 'event');
        if (!isResponseEvent(event)) throw invalidReply(context.node.id, 'sent a lifecycle event without its Response');
        const response: Item = event.response;
        if (typeof response.id === 'string') identity.id = response.id;
        const relayed = withClientModel(record.data, event, response, context.clientModel);
        write(
          `${name}data: ${event.type === 'response.failed' ? withoutNodeSecret(relayed, context.node) : relayed}\n\n`,
        );
        if (!TERMINAL_EVENTS.has(String(event.type))) return 'more';
        summarize(event.response, summary);
        return 'end';
      },
    };
  },
};

/**
 * A Response (or an event carrying one) as the node wrote it, with the client's model id in
 * place of the node's: swapped in the text where it can be (the way chat replies are),
 * else `response` (the Response in `parsed`, the text parsed) changed and `parsed`
 * serialized again.
 */
function withClientModel(text: string, parsed: Item, response: Item, clientModel: string): string {
  if (response.model === clientModel) return text;
  const swapped =
    typeof response.model === 'string'
      ? replaceModelField(text, modelField(response.model), modelField(clientModel), '"output"')
      : undefined;
  if (swapped !== undefined) return swapped;
  response.model = clientModel;
  return JSON.stringify(parsed);
}

/** Characters of text and reasoning deltas, for a usage estimate when a stream is cut. */
function countDelta(data: string, summary: ReplySummary): void {
  if (data.includes('"response.output_text.delta"')) summary.contentCharacters += data.length;
  else if (data.includes('_text.delta"')) summary.reasoningCharacters += data.length;
}

/** The usage (in chat terms) and finish reason a Response tells (inbound-protocols 3.9, 3.10). */
function summarize(response: NodeResponse, summary: ReplySummary): void {
  if (response.usage) summary.usage = chatUsage(response.usage);
  const output = (response.output ?? []).filter(isRecord);
  for (const item of output) {
    for (const part of Array.isArray(item.content) ? item.content : []) {
      if (isRecord(part) && typeof part.text === 'string') {
        if (item.type === 'reasoning') summary.reasoningCharacters += part.text.length;
        else summary.contentCharacters += part.text.length;
      }
    }
  }
  // Hosted-tool calls (`web_search_call` items…) and the tier, priced when the model allows them (docs/keys-and-money.md).
  for (const item of output) {
    const tool =
      typeof item.type === 'string' && item.type.endsWith('_call')
        ? pricedServerTool('responses', item.type.slice(0, -'_call'.length))
        : undefined;
    if (tool === undefined) continue;
    summary.serverToolCalls = { ...summary.serverToolCalls, [tool]: (summary.serverToolCalls?.[tool] ?? 0) + 1 };
  }
  if (typeof response.service_tier === 'string') summary.serviceTier = response.service_tier;
  const reason = response.incomplete_details?.reason;
  if (response.status === 'incomplete')
    summary.finishReason = reason === 'content_filter' ? 'content_filter' : 'length';
  else if (output.some((item) => item.type === 'function_call' || item.type === 'custom_tool_call'))
    summary.finishReason = 'tool_calls';
  else if (response.status === 'completed') summary.finishReason = 'stop';
}

function chatUsage(usage: NonNullable<NodeResponse['usage']>): Usage {
  const input = usage.input_tokens ?? 0;
  const output = usage.output_tokens ?? 0;
  const inputDetails = usage.input_tokens_details ?? {};
  const outputDetails = usage.output_tokens_details ?? {};
  const chat: Usage = { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
  if (typeof inputDetails.cached_tokens === 'number') {
    chat.prompt_tokens_details = { cached_tokens: inputDetails.cached_tokens };
    if (typeof inputDetails.cache_write_tokens === 'number')
      chat.prompt_tokens_details.cache_write_tokens = inputDetails.cache_write_tokens;
  }
  if (typeof outputDetails.reasoning_tokens === 'number')
    chat.completion_tokens_details = { reasoning_tokens: outputDetails.reasoning_tokens };
  return chat;
}
