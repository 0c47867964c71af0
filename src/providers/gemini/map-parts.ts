import { isRecord } from '../translate-content.js';

/** What one Gemini part means for the client. */
export type MappedPart =
  | { readonly kind: 'reasoning'; readonly text: string }
  | { readonly kind: 'content'; readonly text: string }
  | { readonly kind: 'tool-call'; readonly call: Record<string, unknown> };

/**
 * Maps the parts of a candidate in order (provider-protocols 6.2, 6.7): `thought: true`
 * text is reasoning, other text is the answer, a `functionCall` is a whole tool call.
 * Gemini often omits function-call ids, so missing ids are made from the request id and
 * the call's number. A call's `thoughtSignature` travels in
 * `extra_content.google.thought_signature` (the field Google's own OpenAI endpoint uses)
 * so the client sends it back with the call, as Gemini 3 requires.
 */
export function mapParts(parts: unknown, requestId: string, nextToolIndex: () => number): MappedPart[] {
  if (!Array.isArray(parts)) return [];
  const mapped: MappedPart[] = [];
  for (const part of parts) {
    if (!isRecord(part)) continue;
    if (typeof part.text === 'string') {
      if (part.text !== '') mapped.push({ kind: part.thought === true ? 'reasoning' : 'content', text: part.text });
    } else if (isRecord(part.functionCall)) {
      const index = nextToolIndex();
      const functionCall = part.functionCall;
      const call: Record<string, unknown> = {
        id:
          typeof functionCall.id === 'string' && functionCall.id !== ''
            ? functionCall.id
            : `call_${requestId}_${index}`,
        type: 'function',
        function: { name: functionCall.name, arguments: JSON.stringify(functionCall.args ?? {}) },
      };
      if (typeof part.thoughtSignature === 'string')
        call.extra_content = { google: { thought_signature: part.thoughtSignature } };
      mapped.push({ kind: 'tool-call', call: { index, ...call } });
    }
  }
  return mapped;
}
