/**
 * Splits fixed text (a scripted answer, a JSON answer) into simulated tokens the way
 * generated text is tokenized: each token is one word with the whitespace before it;
 * trailing whitespace stays on the last token, so the tokens join back to the text.
 */
export function splitTokens(text: string): string[] {
  const tokens = text.match(/\s*\S+/g) ?? [];
  const rest = text.slice(tokens.join('').length);
  if (rest !== '') {
    if (tokens.length === 0) return [rest];
    tokens[tokens.length - 1] += rest;
  }
  return tokens;
}

/** Tool-call arguments (JSON) are streamed in pieces of this many characters; each counts as a token. */
const ARGUMENT_CHUNK_CHARACTERS = 16;

/** The pieces a tool call's arguments are streamed in. */
export function splitArguments(text: string): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += ARGUMENT_CHUNK_CHARACTERS)
    chunks.push(text.slice(start, start + ARGUMENT_CHUNK_CHARACTERS));
  return chunks.length === 0 ? [''] : chunks;
}
