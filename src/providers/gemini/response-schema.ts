import { Type, type Static } from '@sinclair/typebox';

const Count = Type.Optional(Type.Number());

/** Gemini `usageMetadata`: the counts the gateway reads. */
const GeminiUsageSchema = Type.Object({
  promptTokenCount: Count,
  cachedContentTokenCount: Count,
  candidatesTokenCount: Count,
  thoughtsTokenCount: Count,
  toolUsePromptTokenCount: Count,
  totalTokenCount: Count,
});

/** Gemini `usageMetadata`: the type GeminiUsageSchema checks. */
export type GeminiUsage = Static<typeof GeminiUsageSchema>;

/**
 * A `GenerateContentResponse` (a reply, or one stream event), loosely: the candidates (the
 * first one read part by part), the prompt feedback, usage and the response id. Checked by
 * the generated `isGenerateContentResponse`.
 */
export const GenerateContentResponseSchema = Type.Object({
  candidates: Type.Optional(Type.Array(Type.Unknown())),
  promptFeedback: Type.Optional(Type.Unknown()),
  usageMetadata: Type.Optional(Type.Union([GeminiUsageSchema, Type.Null()])),
  responseId: Type.Optional(Type.Unknown()),
});
