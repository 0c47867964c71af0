import { invalidReply } from '../../upstream/node-failure.js';
import { isRecord } from '../translate-content.js';
import { parseNodeObject, translatedCompletion } from '../translated-reply.js';
import type { CallContext, MappedCompletion } from '../types.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapParts } from './map-parts.js';
import { mapUsage } from './map-usage.js';
import { isGenerateContentResponse } from '../../validation/generated/validate-node-replies.js';

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
  const reply = parseNodeObject(bodyText, context, 'reply');
  if (
    !isGenerateContentResponse(reply) ||
    (reply.candidates === undefined && !isRecord(reply.promptFeedback) && !isRecord(reply.usageMetadata))
  ) {
    throw invalidReply(context.node.id, 'the reply is not a Gemini GenerateContentResponse');
  }
  const candidate = firstCandidate(reply);
  let toolCount = 0;
  const parts = mapParts(
    isRecord(candidate?.content) ? candidate.content.parts : undefined,
    context.requestId,
    () => toolCount++,
  );
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
  const finishReason =
    typeof candidate?.finishReason === 'string'
      ? mapFinishReason(candidate.finishReason, toolCalls.length > 0)
      : candidate === undefined
        ? 'content_filter'
        : toolCalls.length > 0
          ? 'tool_calls'
          : 'stop';
  const usage = mapUsage(reply.usageMetadata ?? {});
  return translatedCompletion({ id: reply.responseId, text, reasoning, toolCalls, finishReason, usage }, context);
}
