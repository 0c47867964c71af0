import type { Usage } from '../../protocol/openai/chat-response-types.js';
import type { GeminiUsage } from './response-schema.js';

export type { GeminiUsage };

/**
 * Gemini usage → OpenAI usage (provider-protocols 5.4, 6.4): thoughts are not inside
 * `candidatesTokenCount`, so completion = candidates + thoughts, and the thoughts are the
 * reasoning tokens.
 */
export function mapUsage(usage: GeminiUsage): Usage {
  const prompt = (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0);
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const completion = (usage.candidatesTokenCount ?? 0) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: usage.totalTokenCount ?? prompt + completion,
    prompt_tokens_details: { cached_tokens: usage.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}
