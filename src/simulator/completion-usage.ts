import { choiceOutputTokens, type CompletionPlan } from './plan-completion.js';

/** The OpenAI `usage` object the simulator reports (a subset of the real one's detail fields). */
export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** Exact usage of a plan: one token per emitted reasoning, content or tool-argument token, over every choice. */
export function completionUsage(plan: CompletionPlan): CompletionUsage {
  const reasoningTokens = plan.choices.reduce((sum, choice) => sum + choice.reasoningTokens.length, 0);
  const completionTokens = plan.choices.reduce((sum, choice) => sum + choiceOutputTokens(choice), 0);
  return {
    prompt_tokens: plan.promptTokens,
    completion_tokens: completionTokens,
    total_tokens: plan.promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: plan.cachedTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}
