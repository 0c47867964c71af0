import { Type } from '@sinclair/typebox';

const Details = (count: string) =>
  Type.Optional(Type.Union([Type.Object({ [count]: Type.Optional(Type.Number()) }), Type.Null()]));

/**
 * Usage in chat terms as an OpenAI-protocol node reports it, loosely: prompt and completion
 * counts are numbers, the total may be left out. Checked by the generated `isChatUsage`.
 */
export const ChatUsageSchema = Type.Object({
  prompt_tokens: Type.Number(),
  completion_tokens: Type.Number(),
  total_tokens: Type.Optional(Type.Number()),
  prompt_tokens_details: Details('cached_tokens'),
  completion_tokens_details: Details('reasoning_tokens'),
});
