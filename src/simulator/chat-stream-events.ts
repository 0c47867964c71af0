import { openaiCallId } from './completion-body.js';
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
 * Encodes a plan as OpenAI `chat.completion.chunk` events (provider-protocols 2.6), choice
 * after choice: role chunk, one chunk per reasoning token, one per content token (with its
 * logprobs when asked for), per tool call a chunk with its id and name then one per piece
 * of its arguments, the finish chunk; then the usage chunk (`choices: []`) only when
 * `includeUsage`, then `[DONE]`.
 */
export function chatStreamEvents(
  plan: CompletionPlan,
  identity: CompletionIdentity,
  includeUsage: boolean,
): ChatStreamEvents {
  // Every chunk shares its head; only the choice differs, so build the head once.
  const head =
    `data: {"id":${JSON.stringify(identity.id)},"object":"chat.completion.chunk","created":${identity.created},` +
    `"model":${JSON.stringify(identity.model)},"choices":[`;
  const tail = includeUsage ? '],"usage":null}\n\n' : ']}\n\n';
  const reasoningKey = JSON.stringify(identity.reasoningField);
  const events: string[] = [];
  let lastPaced = 0;

  plan.choices.forEach((choice, index) => {
    const chunk = (delta: string, finishReason: string | null, logprobs = 'null'): string =>
      `${head}{"index":${index},"delta":${delta},"logprobs":${logprobs},"finish_reason":${JSON.stringify(finishReason)}}${tail}`;
    const hasCalls = choice.toolCalls.length > 0;
    events.push(
      chunk(
        hasCalls && choice.contentTokens.length === 0
          ? '{"role":"assistant","content":null}'
          : '{"role":"assistant","content":""}',
        null,
      ),
    );
    for (const token of choice.reasoningTokens) events.push(chunk(`{${reasoningKey}:${JSON.stringify(token)}}`, null));
    choice.contentTokens.forEach((token, position) => {
      const logprobs = choice.logprobs?.[position];
      events.push(
        chunk(
          `{"content":${JSON.stringify(token)}}`,
          null,
          logprobs === undefined ? 'null' : JSON.stringify({ content: [logprobs], refusal: null }),
        ),
      );
    });
    choice.toolCalls.forEach((call, callIndex) => {
      const opening = {
        index: callIndex,
        id: openaiCallId(call.id),
        type: 'function',
        function: { name: call.name, arguments: '' },
      };
      events.push(chunk(JSON.stringify({ tool_calls: [opening] }), null));
      for (const piece of call.argumentChunks)
        events.push(
          chunk(JSON.stringify({ tool_calls: [{ index: callIndex, function: { arguments: piece } }] }), null),
        );
    });
    lastPaced = events.length - 1;
    events.push(chunk('{}', choice.finishReason));
  });
  if (includeUsage) events.push(`${head}],"usage":${JSON.stringify(completionUsage(plan))}}\n\n`);
  events.push(DONE_EVENT);
  return { events, tokenCount: lastPaced };
}
