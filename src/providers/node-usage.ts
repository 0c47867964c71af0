import { Type } from '@sinclair/typebox';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import { looseCheck } from './loose-check.js';

const Details = (count: string) =>
  Type.Optional(Type.Union([Type.Object({ [count]: Type.Optional(Type.Number()) }), Type.Null()]));

/**
 * Usage in chat terms as an OpenAI-protocol node reports it: prompt and completion counts
 * are numbers, the total may be left out.
 */
const isChatUsage = looseCheck(
  Type.Object({
    prompt_tokens: Type.Number(),
    completion_tokens: Type.Number(),
    total_tokens: Type.Optional(Type.Number()),
    prompt_tokens_details: Details('cached_tokens'),
    completion_tokens_details: Details('reasoning_tokens'),
  }),
);

/**
 * A node's `usage` when it has the shape of chat usage (a total it left out is the sum),
 * else undefined. Whether the numbers are counts (whole, ≥ 0) is for billing to judge
 * (`countedUsage`): usage that is not, or not usage at all, is booked on an estimate.
 */
export function nodeUsage(value: unknown): Usage | undefined {
  if (!isChatUsage(value)) return undefined;
  return { ...value, total_tokens: value.total_tokens ?? value.prompt_tokens + value.completion_tokens };
}
