/** Gemini `finishReason` values that mean the content was blocked (provider-protocols 6.3). */
const FILTERED: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
  'IMAGE_OTHER',
  'NO_IMAGE',
  'OTHER',
]);

/**
 * Gemini `finishReason` → OpenAI `finish_reason`. Gemini says STOP also when it called
 * functions, so `tool_calls` depends on whether a `functionCall` part was seen.
 * MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS and unknown values
 * map to `stop`.
 */
export function mapFinishReason(finishReason: string, sawFunctionCall: boolean): string {
  if (finishReason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(finishReason)) return 'content_filter';
  return sawFunctionCall ? 'tool_calls' : 'stop';
}
