import type { ChatCompletion, ChatCompletionMessage } from '../../protocol/openai/chat-response-types.js';
import { invalidReply } from '../../upstream/node-failure.js';
import { isRecord } from '../translate-content.js';
import { emptySummary, type CallContext, type MappedCompletion } from '../types.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapParts } from './map-parts.js';
import { mapUsage, type GeminiUsage } from './map-usage.js';

/** The first candidate of a Gemini reply (we never ask for more than one). */
export function firstCandidate(reply: Record<string, unknown>): Record<string, unknown> | undefined {
  const candidates = reply.candidates;
  return Array.isArray(candidates) && isRecord(candidates[0]) ? candidates[0] : undefined;
}

/**
 * Gemini `GenerateContentResponse` → OpenAI `chat.completion` (provider-protocols 5.4,
 * 6.2): thought parts become `reasoning_content`, other text `content`, function calls
 * `tool_calls`. A prompt blocked before any candidate (`promptFeedback.blockReason`, still
 * HTTP 200) is an empty answer with `finish_reason: "content_filter"`.
 */
export function fromUpstream(bodyText: string, context: CallContext): MappedCompletion {
  let reply: unknown;
  try {
    reply = JSON.parse(bodyText);
  } catch {
    throw invalidReply(context.node.id, 'the reply is not JSON');
  }
  if (!isRecord(reply) || (!Array.isArray(reply.candidates) && !isRecord(reply.promptFeedback) && !isRecord(reply.usageMetadata))) {
    throw invalidReply(context.node.id, 'the reply is not a Gemini GenerateContentResponse');
  }
  const candidate = firstCandidate(reply);
  let toolCount = 0;
  const parts = mapParts(isRecord(candidate?.content) ? candidate.content.parts : undefined, context.requestId, () => toolCount++);
  let reasoning = '';
  let text = '';
  const toolCalls: Array<Record<string, unknown>> = [];
  for (const part of parts) {
    if (part.kind === 'reasoning') reasoning += part.text;
    else if (part.kind === 'content') text += part.text;
    else {
      const { index: _index, ...call } = part.call;
      toolCalls.push(call);
    }
  }
  const message: ChatCompletionMessage = reasoning === ''
    ? { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text }
    : { role: 'assistant', reasoning_content: reasoning, content: text === '' && toolCalls.length > 0 ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const finishReason = typeof candidate?.finishReason === 'string'
    ? mapFinishReason(candidate.finishReason, toolCalls.length > 0)
    : candidate === undefined ? 'content_filter' : toolCalls.length > 0 ? 'tool_calls' : 'stop';
  const usage = mapUsage(isRecord(reply.usageMetadata) ? (reply.usageMetadata as GeminiUsage) : {});
  const completion: ChatCompletion = {
    id: typeof reply.responseId === 'string' ? reply.responseId : `chatcmpl-${context.requestId}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: context.clientModel,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage,
  };
  const summary = emptySummary();
  summary.usage = usage;
  summary.finishReason = finishReason;
  summary.contentCharacters = text.length;
  summary.reasoningCharacters = reasoning.length;
  return { body: JSON.stringify(completion), summary };
}
