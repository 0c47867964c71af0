import { Type, type Static } from '@sinclair/typebox';
import { MAX_TOKEN_COUNT } from '../../protocol/openai/chat-request-schema.js';

/**
 * What we accept at POST /v1/messages (Anthropic Messages, inbound-protocols 1.3). Known
 * fields are type- and range-checked with numbers finite; objects stay open, since an
 * Anthropic node gets the body as the client sent it (PRODUCT.md decision 15) and new
 * fields appear with every beta. The translator for other nodes checks the blocks it reads.
 */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const Block = Type.Object({ type: Type.String({ minLength: 1 }) });
const Content = Type.Union([Type.String(), Type.Array(Block)]);

export const MESSAGE_ROLES = ['user', 'assistant', 'system'] as const;

const Message = Type.Object({
  role: Type.Unsafe<(typeof MESSAGE_ROLES)[number]>({ enum: [...MESSAGE_ROLES] }),
  content: Content,
});

const Tool = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256 }),
  type: Type.Optional(Nullable(Type.String())),
  description: Type.Optional(Type.String()),
  input_schema: Type.Optional(Type.Object({})),
});

export const TOOL_CHOICE_TYPES = ['auto', 'any', 'tool', 'none'] as const;

const ToolChoice = Type.Object({
  type: Type.Unsafe<(typeof TOOL_CHOICE_TYPES)[number]>({ enum: [...TOOL_CHOICE_TYPES] }),
  name: Type.Optional(Type.String({ minLength: 1 })),
  disable_parallel_tool_use: Type.Optional(Type.Boolean()),
});

const Thinking = Type.Union([
  Type.Object({
    type: Type.Literal('enabled'),
    budget_tokens: Type.Integer({ minimum: 0, maximum: MAX_TOKEN_COUNT }),
    display: Type.Optional(Type.String()),
  }),
  Type.Object({ type: Type.Literal('adaptive'), display: Type.Optional(Type.String()) }),
  Type.Object({ type: Type.Literal('disabled') }),
]);

export const MESSAGES_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

const OutputConfig = Type.Object({
  effort: Type.Optional(Nullable(Type.Unsafe<(typeof MESSAGES_EFFORTS)[number]>({ enum: [...MESSAGES_EFFORTS] }))),
  format: Type.Optional(
    Nullable(Type.Object({ type: Type.String({ minLength: 1 }), schema: Type.Optional(Type.Object({})) })),
  ),
});

/** The fields `count_tokens` and `messages` share (`MessageCountTokensParams`). */
const counted = {
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(Message),
  system: Type.Optional(Nullable(Content)),
  tools: Type.Optional(Nullable(Type.Array(Tool))),
  tool_choice: Type.Optional(Nullable(ToolChoice)),
  thinking: Type.Optional(Nullable(Thinking)),
  output_config: Type.Optional(Nullable(OutputConfig)),
};

export const MessagesRequestSchema = Type.Object({
  ...counted,
  max_tokens: Type.Integer({ minimum: 1, maximum: MAX_TOKEN_COUNT }),
  stream: Type.Optional(Nullable(Type.Boolean())),
  stop_sequences: Type.Optional(Nullable(Type.Array(Type.String()))),
  temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
  top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
  top_k: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_TOKEN_COUNT }))),
  metadata: Type.Optional(Nullable(Type.Object({ user_id: Type.Optional(Nullable(Type.String())) }))),
});

export const CountTokensRequestSchema = Type.Object(counted);

/** A content block as accepted: its `type` checked, the rest read by whoever needs it. */
export type MessagesBlock = { type: string } & Record<string, unknown>;

/** One message as accepted. */
export interface MessagesMessage {
  role: (typeof MESSAGE_ROLES)[number];
  content: string | MessagesBlock[];
  [field: string]: unknown;
}

type MessagesRequestShape = Static<typeof MessagesRequestSchema>;

/** A Messages request that passed validation; unknown fields are kept for Anthropic nodes. */
export type MessagesRequest = Omit<MessagesRequestShape, 'messages' | 'system'> & {
  messages: MessagesMessage[];
  system?: string | MessagesBlock[] | null;
} & Record<string, unknown>;

/** A count_tokens request that passed validation. */
export type CountTokensRequest = Omit<Static<typeof CountTokensRequestSchema>, 'messages' | 'system'> & {
  messages: MessagesMessage[];
  system?: string | MessagesBlock[] | null;
} & Record<string, unknown>;
