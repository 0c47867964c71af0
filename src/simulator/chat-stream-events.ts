import type { CompletionIdentity } from './completion-identity.js';
import { completionUsage } from './completion-usage.js';
import type { CompletionPlan } from './plan-completion.js';

/** The SSE events of one streamed completion, in wire order, each a complete `data: …\n\n` string. */
export interface ChatStreamEvents {
  events: string[];
  /** Events 1..tokenCount are the reasoning and content token chunks (the ones paced). */
  tokenCount: number;
}

/** The terminator OpenAI-style streams end with. */
export const DONE_EVENT = 'data: [DONE]\n\n';

/**
 * Encodes a plan as OpenAI `chat.completion.chunk` events (provider-protocols 2.6): role
 * chunk, one chunk per reasoning token, one per content token, finish chunk, the usage
 * chunk (`choices: []`) only when `includeUsage`, then `[DONE]`.
 */
export function chatStreamEvents(plan: CompletionPlan, identity: CompletionIdentity, includeUsage: boolean): ChatStreamEvents {
  // Every chunk shares its head; only the choice differs, so build the head once.
  const head = `data: {"id":${JSON.stringify(identity.id)},"object":"chat.completion.chunk","created":${identity.created},`
    + `"model":${JSON.stringify(identity.model)},"choices":[`;
  const tail = includeUsage ? '],"usage":null}\n\n' : ']}\n\n';
  const choice = (delta: string, finishReason: string | null): string =>
    `${head}{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${JSON.stringify(finishReason)}}${tail}`;

  const reasoningKey = JSON.stringify(identity.reasoningField);
  const events: string[] = [choice('{"role":"assistant","content":""}', null)];
  for (const token of plan.reasoningTokens) events.push(choice(`{${reasoningKey}:${JSON.stringify(token)}}`, null));
  for (const token of plan.contentTokens) events.push(choice(`{"content":${JSON.stringify(token)}}`, null));
  events.push(choice('{}', plan.finishReason));
  if (includeUsage) events.push(`${head}],"usage":${JSON.stringify(completionUsage(plan))}}\n\n`);
  events.push(DONE_EVENT);
  return { events, tokenCount: plan.reasoningTokens.length + plan.contentTokens.length };
}
