import { Type, type Static } from '@sinclair/typebox';
import { REASONING_EFFORTS } from '../../config/reasoning-efforts.js';
import { MAX_TOKEN_COUNT } from '../../protocol/openai/chat-request-schema.js';

/**
 * What we accept at POST /v1/responses (inbound-protocols 2.3–2.5). Known fields are
 * type- and range-checked, numbers finite (generated with `strictNumbers`); items, parts
 * and tools are checked for their `type` here and for their members by the translator,
 * which names the offending path. Objects stay open: unknown vendor fields pass through to
 * native Responses nodes (PRODUCT.md decision 8).
 */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Effort = Type.Unsafe<(typeof REASONING_EFFORTS)[number]>({ enum: [...REASONING_EFFORTS] });

/** One input item: a message (with or without `type`), a tool call or output, reasoning, a reference. */
const InputItem = Type.Object({ type: Type.Optional(Type.String({ minLength: 1 })) });
const Tool = Type.Object({ type: Type.String({ minLength: 1 }) });

export const CreateResponseSchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: Type.Union([Type.String(), Type.Array(InputItem)]),
  instructions: Type.Optional(Nullable(Type.String())),
  tools: Type.Optional(Nullable(Type.Array(Tool))),
  tool_choice: Type.Optional(Nullable(Type.Union([Type.String(), Type.Object({ type: Type.String() })]))),
  parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
  max_tool_calls: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_TOKEN_COUNT }))),
  reasoning: Type.Optional(
    Nullable(
      Type.Object({
        effort: Type.Optional(Nullable(Effort)),
        summary: Type.Optional(Nullable(Type.Unsafe<string>({ enum: ['auto', 'concise', 'detailed'] }))),
        generate_summary: Type.Optional(Nullable(Type.Unsafe<string>({ enum: ['auto', 'concise', 'detailed'] }))),
      }),
    ),
  ),
  text: Type.Optional(
    Nullable(
      Type.Object({
        format: Type.Optional(Nullable(Type.Object({ type: Type.String({ minLength: 1 }) }))),
        verbosity: Type.Optional(Nullable(Type.Unsafe<string>({ enum: ['low', 'medium', 'high'] }))),
      }),
    ),
  ),
  max_output_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: MAX_TOKEN_COUNT }))),
  temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
  top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
  top_logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
  store: Type.Optional(Nullable(Type.Boolean())),
  previous_response_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  include: Type.Optional(Nullable(Type.Array(Type.String(), { maxItems: 32 }))),
  metadata: Type.Optional(
    Nullable(
      Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), {
        maxProperties: 16,
      }),
    ),
  ),
  stream: Type.Optional(Nullable(Type.Boolean())),
  truncation: Type.Optional(Nullable(Type.Unsafe<string>({ enum: ['auto', 'disabled'] }))),
  prompt_cache_key: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  safety_identifier: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  user: Type.Optional(Nullable(Type.String())),
  service_tier: Type.Optional(Nullable(Type.String())),
});

type CreateResponseShape = Static<typeof CreateResponseSchema>;

/** A loosely typed item of `input` (checked member by member when translated). */
export type InputItemBody = Record<string, unknown>;

/** A CreateResponse body that passed validation; unknown fields are kept for pass-through. */
export type CreateResponseRequest = CreateResponseShape & Record<string, unknown>;
