import { Type } from '@sinclair/typebox';
import type { Loose } from '../loose-check.js';

const Count = Type.Optional(Type.Number());
const Details = (counts: string[]) =>
  Type.Optional(Type.Union([Type.Object(Object.fromEntries(counts.map((count) => [count, Count]))), Type.Null()]));

/** A Responses API `Response`, loosely: what the gateway reads for booking and the model id. */
export const ResponseSchema = Type.Object({
  id: Type.Optional(Type.Unknown()),
  model: Type.Optional(Type.Unknown()),
  status: Type.Optional(Type.Unknown()),
  output: Type.Optional(Type.Array(Type.Unknown())),
  usage: Type.Optional(
    Type.Union([
      Type.Object({
        input_tokens: Count,
        output_tokens: Count,
        input_tokens_details: Details(['cached_tokens', 'cache_write_tokens']),
        output_tokens_details: Details(['reasoning_tokens']),
      }),
      Type.Null(),
    ]),
  ),
  incomplete_details: Type.Optional(Type.Union([Type.Object({ reason: Type.Optional(Type.Unknown()) }), Type.Null()])),
  service_tier: Type.Optional(Type.Unknown()),
});

/** A Response: the type ResponseSchema checks. */
export type NodeResponse = Loose<typeof ResponseSchema>;

/**
 * A node's lifecycle event that carries a Response (`response.created`, `response.completed`…).
 * The generated `isNodeResponse` and `isResponseEvent` check the two.
 */
export const ResponseEventSchema = Type.Object({ type: Type.Optional(Type.Unknown()), response: ResponseSchema });
