import type { Usage } from '../protocol/openai/chat-response-types.js';
import { isChatUsage } from '../validation/generated/validate-node-replies.js';

/**
 * A node's `usage` when it has the shape of chat usage (a total it left out is the sum),
 * else undefined. Whether the numbers are counts (whole, ≥ 0) is for billing to judge
 * (`countedUsage`): usage that is not, or not usage at all, is booked on an estimate.
 */
export function nodeUsage(value: unknown): Usage | undefined {
  if (!isChatUsage(value)) return undefined;
  return { ...value, total_tokens: value.total_tokens ?? value.prompt_tokens + value.completion_tokens };
}
