import type { ChatCompletion, ChatCompletionMessage, Usage } from '../protocol/openai/chat-response-types.js';
import { invalidReply } from '../upstream/node-failure.js';
import { isRecord } from './translate-content.js';
import { emptySummary, type CallContext, type MappedCompletion } from './types.js';

/** Parses one JSON object from a node (a reply body or a stream event); anything else is an invalid reply. */
export function parseNodeObject(text: string, context: CallContext, what: 'reply' | 'event'): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidReply(context.node.id, what === 'reply' ? 'the reply is not JSON' : 'sent an event that is not JSON');
  }
  if (!isRecord(value))
    throw invalidReply(
      context.node.id,
      what === 'reply' ? 'the reply is not a JSON object' : 'sent an event that is not an object',
    );
  return value;
}

/** What a translated (non-OpenAI) reply carried, in OpenAI terms. */
export interface TranslatedReply {
  /** The node's id for the reply, if it gave one. */
  readonly id: unknown;
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: ReadonlyArray<Record<string, unknown>>;
  readonly finishReason: string;
  /** The refusal text when the node said the model refused (Anthropic `stop_reason: "refusal"`). */
  readonly refusal?: string;
  readonly usage: Usage;
  /** Protocol-specific message fields (Anthropic `thinking_blocks`). */
  readonly extra?: Record<string, unknown>;
}

/**
 * The OpenAI `chat.completion` of a translated reply and its summary: reasoning before the
 * answer, `content: null` when the reply is only tool calls, and the fields OpenAI's schema
 * requires and sends as null when unused (`message.refusal`, `choices[].logprobs`). A
 * refusal's text is in `refusal` and stays in `content` too, for clients that read only that.
 */
export function translatedCompletion(reply: TranslatedReply, context: CallContext): MappedCompletion {
  const content = reply.text === '' && reply.toolCalls.length > 0 ? null : reply.text;
  const refusal = reply.refusal === undefined || reply.refusal === '' ? null : reply.refusal;
  const message: ChatCompletionMessage =
    reply.reasoning === ''
      ? { role: 'assistant', content, refusal }
      : { role: 'assistant', reasoning_content: reply.reasoning, content, refusal };
  if (reply.extra !== undefined) Object.assign(message, reply.extra);
  if (reply.toolCalls.length > 0) message.tool_calls = reply.toolCalls;
  const completion: ChatCompletion = {
    id: typeof reply.id === 'string' ? reply.id : `chatcmpl-${context.requestId}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: context.clientModel,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: reply.usage,
  };
  const summary = emptySummary();
  summary.usage = reply.usage;
  summary.finishReason = reply.finishReason;
  summary.contentCharacters = reply.text.length;
  summary.reasoningCharacters = reply.reasoning.length;
  return { body: JSON.stringify(completion), summary };
}
