import { Type, type Static } from '@sinclair/typebox';
import { REASONING_EFFORTS } from '../../config/reasoning-efforts.js';

/**
 * What we accept at POST /v1/chat/completions (spec 2.1, 2.2; PRODUCT.md decision 8).
 * Known fields are type- and range-checked, numbers finite (the validator is generated
 * with `strictNumbers`: the Infinity JSON.parse makes of 1e400 fails); unknown fields
 * pass through to OpenAI-compatible nodes (vendor extensions), so objects stay open.
 */

/** Every effort word (PRODUCT.md decision 19); whether the model takes it is checked against its configuration. */
const Effort = Type.Union(REASONING_EFFORTS.map((effort) => Type.Literal(effort)));
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * Largest token count a request may name (`max_tokens`, `max_completion_tokens`,
 * `reasoning.max_tokens`): 2^31 − 1, what every node's 32-bit counters hold.
 */
export const MAX_TOKEN_COUNT = 2_147_483_647;
const TokenCount = (minimum: number) => Type.Integer({ minimum, maximum: MAX_TOKEN_COUNT });

const ContentPart = Type.Object({ type: Type.String({ minLength: 1 }) });

export const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const Message = Type.Object({
  // An enum, not a union of literals: Ajv builds an error object for every literal that
  // does not match before the one that does, on every message of every request.
  role: Type.Unsafe<(typeof ROLES)[number]>({ enum: [...ROLES] }),
  content: Type.Optional(Type.Union([Type.String(), Type.Array(ContentPart), Type.Null()])),
  name: Type.Optional(Type.String()),
  tool_calls: Type.Optional(Type.Array(Type.Object({}))),
  tool_call_id: Type.Optional(Type.String()),
});

export const ChatRequestSchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(Message, { minItems: 1 }),
  stream: Type.Optional(Nullable(Type.Boolean())),
  stream_options: Type.Optional(Nullable(Type.Object({ include_usage: Type.Optional(Type.Boolean()) }))),
  reasoning_effort: Type.Optional(Nullable(Effort)),
  // OpenRouter's object (provider-protocols 3.4): `max_tokens` a thinking budget, `exclude` the reasoning text left out of the reply.
  reasoning: Type.Optional(
    Nullable(
      Type.Object({
        effort: Type.Optional(Nullable(Effort)),
        max_tokens: Type.Optional(Nullable(TokenCount(0))),
        exclude: Type.Optional(Nullable(Type.Boolean())),
      }),
    ),
  ),
  temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
  top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
  n: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 128 }))),
  max_tokens: Type.Optional(Nullable(TokenCount(1))),
  max_completion_tokens: Type.Optional(Nullable(TokenCount(1))),
  presence_penalty: Type.Optional(Nullable(Type.Number({ minimum: -2, maximum: 2 }))),
  frequency_penalty: Type.Optional(Nullable(Type.Number({ minimum: -2, maximum: 2 }))),
  logprobs: Type.Optional(Nullable(Type.Boolean())),
  top_logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
  // Safe integers: larger ones are not what the client wrote once parsed (1e20 is a double).
  seed: Type.Optional(Nullable(Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }))),
  stop: Type.Optional(Nullable(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 })]))),
  logit_bias: Type.Optional(Nullable(Type.Record(Type.String(), Type.Number({ minimum: -100, maximum: 100 })))),
  tools: Type.Optional(Type.Array(Type.Object({ type: Type.String({ minLength: 1 }) }))),
  tool_choice: Type.Optional(Type.Union([Type.String(), Type.Object({ type: Type.String() })])),
  parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
  response_format: Type.Optional(Nullable(Type.Object({ type: Type.String({ minLength: 1 }) }))),
  user: Type.Optional(Type.String()),
});

type ChatRequestShape = Static<typeof ChatRequestSchema>;

/** A message as accepted: the checked fields plus whatever else the client sent. */
export type ChatMessage = ChatRequestShape['messages'][number] & Record<string, unknown>;

/** A chat request that passed validation; unknown fields are kept for pass-through. */
export type ChatRequest = Omit<ChatRequestShape, 'messages'> & { messages: ChatMessage[] } & Record<string, unknown>;
