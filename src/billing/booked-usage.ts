import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import type { ReplySummary } from '../providers/types.js';
import type { ReportedFeatures } from './feature-prices.js';

/** The usage a request is booked on, as a value: what settle prices and the request record shows. */
export interface BookedUsage {
  readonly usage: Usage;
  /** True when the gateway estimated it (the node reported none, or none it could trust). */
  readonly estimated: boolean;
  /** Priced features the node reported for the reply (server-tool calls, service tier). */
  readonly reportedFeatures?: ReportedFeatures;
  /** Whether the node's own counts are booked (and so were sent to the client as they came). */
  readonly sent: boolean;
}

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
 * The prompt's tokens as an estimate counts them: its text's length, and a few tokens a
 * message. What a reply whose node reported no usage is booked on; a stream keeps this number
 * rather than the request, so a long prompt is not held while its reply streams.
 */
export function estimatedPromptTokens(request: ChatRequest): number {
  let promptCharacters = 0;
  for (const message of request.messages) promptCharacters += textOf(message.content);
  return Math.ceil(promptCharacters / CHARACTERS_PER_TOKEN) + 3 * request.messages.length;
}

/**
 * The prompt an estimate reads: the request itself, counted only when an estimate is needed
 * (a JSON reply, whose request is still at hand), or the tokens `estimatedPromptTokens`
 * already counted of it (what a stream keeps).
 */
export type PromptOf = ChatRequest | number;

/**
 * Usage for a reply whose node reported none (a cut stream, a node without usage): an
 * estimate from text length (the prompt's as `estimatedPromptTokens` counts it), marked
 * `estimated` wherever it is booked or shown.
 */
export function estimateUsage(prompt: PromptOf, summary: ReplySummary): Usage {
  const promptTokens = typeof prompt === 'number' ? prompt : estimatedPromptTokens(prompt);
  const reasoning = Math.ceil(summary.reasoningCharacters / CHARACTERS_PER_TOKEN);
  const completion = reasoning + Math.ceil(summary.contentCharacters / CHARACTERS_PER_TOKEN);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
    completion_tokens_details: { reasoning_tokens: reasoning },
    estimated: true,
  };
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isOptionalCount(value: unknown): boolean {
  return value === undefined || value === null || isCount(value);
}

/**
 * The node's usage when every count it gives is a whole number ≥ 0 (prompt and completion
 * required; total, cached and reasoning when present); otherwise undefined. A node's
 * usage is never trusted as it comes: a count that is a string, negative or fractional
 * would turn the cost into NaN or a refund.
 */
export function countedUsage(usage: Usage | null | undefined): Usage | undefined {
  if (usage === null || typeof usage !== 'object') return undefined;
  if (!isCount(usage.prompt_tokens) || !isCount(usage.completion_tokens)) return undefined;
  if (
    !isOptionalCount(usage.prompt_tokens_details?.cached_tokens) ||
    !isOptionalCount(usage.completion_tokens_details?.reasoning_tokens)
  )
    return undefined;
  if (isCount(usage.total_tokens)) return usage;
  return { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
}

/**
 * The usage the request is booked on: the node's (`countedUsage`), or else an estimate from
 * the prompt and the reply's text, marked estimated; with the priced features the node
 * reported.
 */
export function bookedUsage(prompt: PromptOf, summary: ReplySummary): BookedUsage {
  const reportedFeatures =
    summary.serverToolCalls !== undefined || summary.serviceTier !== undefined
      ? { serverToolCalls: summary.serverToolCalls, serviceTier: summary.serviceTier }
      : undefined;
  const counted = countedUsage(summary.usage);
  if (counted !== undefined) return { usage: counted, estimated: false, reportedFeatures, sent: true };
  return { usage: estimateUsage(prompt, summary), estimated: true, reportedFeatures, sent: false };
}

/**
 * The usage of a stream still running, for its crash-journal record: the node's counts if
 * it already reported them, else an estimate of the text streamed so far, with the prompt
 * as the reservation counted it (when it did: paid models).
 */
export function streamedUsage(
  promptTokens: number,
  summary: ReplySummary,
  reservedPromptTokens: number | undefined,
): Usage {
  const counted = countedUsage(summary.usage);
  if (counted !== undefined) return counted;
  const estimate = estimateUsage(promptTokens, summary);
  if (reservedPromptTokens === undefined) return estimate;
  return {
    ...estimate,
    prompt_tokens: reservedPromptTokens,
    total_tokens: reservedPromptTokens + estimate.completion_tokens,
  };
}

/**
 * The usage of an attempt the request's own shape ended while its node was producing (a
 * time-out while it wrote, a reply over the gateway's cap), with no usage from the node: the
 * prompt estimated from the request, `completionTokens` as the caller bounds them, marked
 * estimated. Such an attempt is not free (issue 28, finding 9).
 */
export function unreportedReplyUsage(request: ChatRequest, completionTokens: number): BookedUsage {
  const prompt = estimatedPromptTokens(request);
  return {
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completionTokens,
      total_tokens: prompt + completionTokens,
      estimated: true,
    },
    estimated: true,
    sent: false,
  };
}
