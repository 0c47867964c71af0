import { DeterministicText } from './deterministic-text.js';
import { fnv1aHash } from './fnv1a-hash.js';
import { messageText } from './message-text.js';
import type { ChatRequest, ReasoningEffort } from './parse-chat-request.js';
import { countPromptTokens } from './simulated-tokenizer.js';

/** Reasoning tokens produced per effort ("none" produces no reasoning). */
export const REASONING_TOKENS_BY_EFFORT: Readonly<Record<ReasoningEffort, number>> = {
  none: 0,
  minimal: 8,
  low: 16,
  medium: 48,
  high: 128,
  xhigh: 256,
  max: 512,
};

const MIN_ANSWER_TOKENS = 12;
const MAX_ANSWER_TOKENS = 48;
/** Salt that gives the reasoning text its own random stream, independent of the answer's. */
const REASONING_SEED_SALT = 0x9e3779b9;

/** Everything one simulated completion emits, decided before the first byte is written. */
export interface CompletionPlan {
  promptTokens: number;
  reasoningTokens: readonly string[];
  contentTokens: readonly string[];
  finishReason: 'stop' | 'length';
}

/** Seed for a request: FNV-1a of the model name and every message's text. */
export function requestSeed(request: Pick<ChatRequest, 'model' | 'messages'>): number {
  return fnv1aHash([request.model, ...request.messages.map(messageText)].join('\u0000'));
}

/**
 * Decides the reasoning and answer tokens of a request, deterministically. Reasoning comes
 * first and, as with OpenAI's `max_completion_tokens`, shares the cap with the answer.
 */
export function planCompletion(request: Pick<ChatRequest, 'model' | 'messages' | 'maxTokens' | 'reasoningEffort' | 'reasoningTokens'>): CompletionPlan {
  const seed = requestSeed(request);
  const cap = request.maxTokens ?? Number.POSITIVE_INFINITY;
  const wantedReasoning = request.reasoningTokens
    ?? (request.reasoningEffort === undefined ? 0 : REASONING_TOKENS_BY_EFFORT[request.reasoningEffort]);
  const wantedAnswer = MIN_ANSWER_TOKENS + (seed % (MAX_ANSWER_TOKENS - MIN_ANSWER_TOKENS + 1));

  const reasoningCount = Math.min(wantedReasoning, cap);
  const answerCount = Math.min(wantedAnswer, cap - reasoningCount);
  const reasoningTokens = reasoningCount === 0
    ? []
    : new DeterministicText((seed ^ REASONING_SEED_SALT) >>> 0).tokens(wantedReasoning).slice(0, reasoningCount);
  const contentTokens = answerCount === 0 ? [] : new DeterministicText(seed).tokens(wantedAnswer).slice(0, answerCount);
  const truncated = reasoningCount < wantedReasoning || answerCount < wantedAnswer;

  return {
    promptTokens: countPromptTokens(request.messages),
    reasoningTokens,
    contentTokens,
    finishReason: truncated ? 'length' : 'stop',
  };
}
