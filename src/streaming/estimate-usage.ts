import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import type { ReplySummary } from '../providers/types.js';

const CHARACTERS_PER_TOKEN = 4;

function textOf(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  let length = 0;
  for (const part of content) {
    const text = (part as { text?: unknown } | null)?.text;
    if (typeof text === 'string') length += text.length;
  }
  return length;
}

/**
 * Usage for a reply whose node reported none (a cut stream, a node without stream usage):
 * an estimate from text length, marked `estimated` wherever it is booked or shown.
 */
export function estimateUsage(request: ChatRequest, summary: ReplySummary): Usage {
  let promptCharacters = 0;
  for (const message of request.messages) promptCharacters += textOf(message.content);
  const prompt = Math.ceil(promptCharacters / CHARACTERS_PER_TOKEN) + 3 * request.messages.length;
  const reasoning = Math.ceil(summary.reasoningCharacters / CHARACTERS_PER_TOKEN);
  const completion = reasoning + Math.ceil(summary.contentCharacters / CHARACTERS_PER_TOKEN);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    completion_tokens_details: { reasoning_tokens: reasoning },
    estimated: true,
  };
}
