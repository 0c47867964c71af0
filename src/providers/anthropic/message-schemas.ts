import { Type, type Static } from '@sinclair/typebox';

const Count = Type.Optional(Type.Union([Type.Number(), Type.Null()]));

/** Anthropic `usage` (message, message_start, message_delta): the counts the gateway reads. */
const AnthropicUsageSchema = Type.Object({
  input_tokens: Count,
  cache_creation_input_tokens: Count,
  cache_read_input_tokens: Count,
  /** The cache writes split by TTL. */
  cache_creation: Type.Optional(
    Type.Union([Type.Object({ ephemeral_5m_input_tokens: Count, ephemeral_1h_input_tokens: Count }), Type.Null()]),
  ),
  output_tokens: Count,
  output_tokens_details: Type.Optional(Type.Union([Type.Object({ thinking_tokens: Count }), Type.Null()])),
  /** Server-tool calls (`web_search_requests`, `web_fetch_requests`…), priced per call (docs/keys-and-money.md). */
  server_tool_use: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  /** The tier the request was served in (`standard`, `priority`, `batch`). */
  service_tier: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** Anthropic `usage`: the type AnthropicUsageSchema checks. */
export type AnthropicUsage = Static<typeof AnthropicUsageSchema>;

const OptionalUsage = Type.Optional(Type.Union([AnthropicUsageSchema, Type.Null()]));

// The generated `isAnthropicMessage`, `isMessageStart` and `isMessageDelta` check the three below.

/** An Anthropic `message` reply: its content blocks (each read on its own) and usage. */
export const AnthropicMessageSchema = Type.Object({ content: Type.Array(Type.Unknown()), usage: OptionalUsage });

/** A `message_start` event: the message's identity and input usage. */
export const MessageStartSchema = Type.Object({
  message: Type.Object({ id: Type.Optional(Type.Unknown()), usage: OptionalUsage }),
});

/** A `message_delta` event: the stop reason and cumulative usage. */
export const MessageDeltaSchema = Type.Object({
  delta: Type.Optional(Type.Union([Type.Object({ stop_reason: Type.Optional(Type.Unknown()) }), Type.Null()])),
  usage: OptionalUsage,
});
