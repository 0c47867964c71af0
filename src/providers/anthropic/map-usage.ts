import type { Usage } from '../../protocol/openai/chat-response-types.js';
import { isRecord } from '../translate-content.js';
import type { AnthropicUsage } from './message-schemas.js';

export type { AnthropicUsage };

/**
 * The server-tool calls in Anthropic usage, by tool: `web_search_requests: 2` → `web_search: 2`;
 * counts that are not whole numbers above 0 are left out. Undefined when there are none.
 */
export function serverToolCallsOf(usage: AnthropicUsage): Record<string, number> | undefined {
  const use = usage.server_tool_use;
  if (!isRecord(use)) return undefined;
  let calls: Record<string, number> | undefined;
  for (const [field, count] of Object.entries(use)) {
    if (!field.endsWith('_requests') || !isCount(count) || count === 0) continue;
    calls ??= {};
    calls[field.slice(0, -'_requests'.length)] = count;
  }
  return calls;
}

/**
 * Anthropic usage → OpenAI usage (provider-protocols 6.4). Anthropic's `input_tokens`
 * excludes cache reads and writes, so the prompt is the sum of the three; reads are
 * `cached_tokens`, writes `cache_write_tokens`, and the writes for one hour (priced apart,
 * PRODUCT.md decision 21) also `cache_write_1h_tokens` when there are any. `output_tokens`
 * already includes thinking. Reasoning tokens come from `output_tokens_details`; when the
 * node did not report them they are 0 only if no thinking was seen, otherwise left out
 * rather than guessed.
 */
export function mapUsage(usage: AnthropicUsage, sawThinking: boolean): Usage {
  const input = usage.input_tokens ?? 0;
  const cacheWrite1h = countOf(usage.cache_creation?.ephemeral_1h_input_tokens);
  const cacheWrite = Math.max(
    usage.cache_creation_input_tokens ?? 0,
    countOf(usage.cache_creation?.ephemeral_5m_input_tokens) + cacheWrite1h,
  );
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const prompt = input + cacheWrite + cacheRead;
  const completion = usage.output_tokens ?? 0;
  const thinking = usage.output_tokens_details?.thinking_tokens ?? (sawThinking ? undefined : 0);
  const mapped: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
  };
  if (cacheWrite1h > 0)
    mapped.prompt_tokens_details = {
      cached_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      cache_write_1h_tokens: cacheWrite1h,
    };
  if (thinking !== undefined) mapped.completion_tokens_details = { reasoning_tokens: thinking };
  return mapped;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A breakdown count as given when it is a whole number ≥ 0, else 0 (it only ever splits a total). */
function countOf(value: unknown): number {
  return isCount(value) ? value : 0;
}

/** Stream usage is cumulative: later counters replace earlier ones (provider-protocols 4.5). */
export function mergeUsage(into: AnthropicUsage, update: AnthropicUsage | null | undefined): void {
  if (update === null || update === undefined) return;
  for (const field of [
    'input_tokens',
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
    'output_tokens',
  ] as const) {
    const value = update[field];
    if (typeof value === 'number') into[field] = value;
  }
  if (isRecord(update.cache_creation)) into.cache_creation = { ...into.cache_creation, ...update.cache_creation };
  if (isRecord(update.server_tool_use)) into.server_tool_use = { ...into.server_tool_use, ...update.server_tool_use };
  if (typeof update.service_tier === 'string') into.service_tier = update.service_tier;
  if (typeof update.output_tokens_details?.thinking_tokens === 'number')
    into.output_tokens_details = { thinking_tokens: update.output_tokens_details.thinking_tokens };
}
