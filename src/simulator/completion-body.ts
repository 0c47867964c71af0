import type { CompletionIdentity } from './completion-identity.js';
import { completionUsage, type CompletionUsage } from './completion-usage.js';
import type { ChoicePlan, CompletionPlan } from './plan-completion.js';
import type { TokenLogprob } from './token-logprobs.js';

/** An OpenAI tool call as it appears in `message.tool_calls`. */
export interface ToolCallBody {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A non-streaming `chat.completion` body as the simulator emits it. */
export interface ChatCompletionBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: null;
      tool_calls?: ToolCallBody[];
      [reasoningField: string]: unknown;
    };
    logprobs: { content: TokenLogprob[]; refusal: null } | null;
    finish_reason: ChoicePlan['finishReason'];
  }>;
  usage: CompletionUsage;
}

/** OpenAI's spelling of a planned call's id. */
export function openaiCallId(id: string): string {
  return `call_${id}`;
}

function choiceBody(
  choice: ChoicePlan,
  index: number,
  identity: CompletionIdentity,
): ChatCompletionBody['choices'][number] {
  const calls = choice.toolCalls.map((call): ToolCallBody => ({
    id: openaiCallId(call.id),
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  const message: ChatCompletionBody['choices'][number]['message'] = {
    role: 'assistant',
    // With tool calls and no text, OpenAI sends `content: null` (provider-protocols 2.4).
    content: calls.length > 0 && choice.contentTokens.length === 0 ? null : choice.contentTokens.join(''),
    refusal: null,
  };
  if (choice.reasoningTokens.length > 0) message[identity.reasoningField] = choice.reasoningTokens.join('');
  if (calls.length > 0) message.tool_calls = calls;
  const logprobs = choice.logprobs === undefined ? null : { content: [...choice.logprobs], refusal: null };
  return { index, message, logprobs, finish_reason: choice.finishReason };
}

/** Builds the `chat.completion` body for a plan: one entry per choice; reasoning text goes under `identity.reasoningField`. */
export function completionBody(plan: CompletionPlan, identity: CompletionIdentity): ChatCompletionBody {
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: plan.choices.map((choice, index) => choiceBody(choice, index, identity)),
    usage: completionUsage(plan),
  };
}
