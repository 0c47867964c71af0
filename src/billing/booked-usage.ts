import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import type { ReplySummary } from '../providers/types.js';
import type { RequestRecord } from '../context/request-context.js';

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
 * Usage for a reply whose node reported none (a cut stream, a node without usage): an
 * estimate from text length, marked `estimated` wherever it is booked or shown.
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
 * Sets the usage the request is booked on, once: the node's (`countedUsage`), or else an
 * estimate from the request and the reply's text, and `usageEstimated`.
 */
export function bookUsage(record: RequestRecord, request: ChatRequest, summary: ReplySummary): Usage {
  if (record.usage !== undefined) return record.usage;
  if (summary.serverToolCalls !== undefined || summary.serviceTier !== undefined)
    record.reportedFeatures = { serverToolCalls: summary.serverToolCalls, serviceTier: summary.serviceTier };
  const counted = countedUsage(summary.usage);
  if (counted !== undefined) return (record.usage = counted);
  record.usageEstimated = true;
  return (record.usage = estimateUsage(request, summary));
}

/**
 * The usage of a stream still running, for its crash-journal record: the node's counts if
 * it already reported them, else an estimate of the text streamed so far, with the prompt
 * as the reservation counted it (when it did: paid models).
 */
export function streamedUsage(
  request: ChatRequest,
  summary: ReplySummary,
  reservedPromptTokens: number | undefined,
): Usage {
  const counted = countedUsage(summary.usage);
  if (counted !== undefined) return counted;
  const estimate = estimateUsage(request, summary);
  if (reservedPromptTokens === undefined) return estimate;
  return {
    ...estimate,
    prompt_tokens: reservedPromptTokens,
    total_tokens: reservedPromptTokens + estimate.completion_tokens,
  };
}

const NOTHING_RELAYED: ReplySummary = {
  usage: undefined,
  finishReason: undefined,
  reasoningCharacters: 0,
  contentCharacters: 0,
};

/**
 * Books an attempt the request's own shape ended while its node was producing (a time-out
 * while it wrote, a reply over the gateway's cap), with no usage from the node: the prompt
 * estimated from the request, `completionTokens` as the caller bounds them, marked
 * estimated. Such an attempt is not free (issue 28, finding 9).
 */
export function bookUnreportedReply(record: RequestRecord, request: ChatRequest, completionTokens: number): void {
  const prompt = estimateUsage(request, NOTHING_RELAYED).prompt_tokens;
  record.usageEstimated = true;
  record.usage = {
    prompt_tokens: prompt,
    completion_tokens: completionTokens,
    total_tokens: prompt + completionTokens,
    estimated: true,
  };
}
