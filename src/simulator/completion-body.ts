import type { CompletionIdentity } from './completion-identity.js';
import { completionUsage, type CompletionUsage } from './completion-usage.js';
import type { CompletionPlan } from './plan-completion.js';

/** A non-streaming `chat.completion` body as the simulator emits it. */
export interface ChatCompletionBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string; refusal: null; [reasoningField: string]: string | null };
    logprobs: null;
    finish_reason: CompletionPlan['finishReason'];
  }>;
  usage: CompletionUsage;
}

/** Builds the `chat.completion` body for a plan; reasoning text goes under `identity.reasoningField`. */
export function completionBody(plan: CompletionPlan, identity: CompletionIdentity): ChatCompletionBody {
  const message: ChatCompletionBody['choices'][number]['message'] = {
    role: 'assistant',
    content: plan.contentTokens.join(''),
    refusal: null,
  };
  if (plan.reasoningTokens.length > 0) message[identity.reasoningField] = plan.reasoningTokens.join('');
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finishReason }],
    usage: completionUsage(plan),
  };
}
