import { messageText } from './message-text.js';

const TOKENS_PER_MESSAGE = 4;
const TOKENS_PER_PROMPT = 2;

export function isWhitespace(code: number): boolean {
  // ASCII whitespace plus the common Unicode spaces; matches what `\s` splits on in practice.
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0xfeff ||
    code === 0x1680 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    (code >= 0x2000 && code <= 0x200a)
  );
}

/** Simulated token count: the number of whitespace-separated words (punctuation stays attached); 0 for empty text. */
export function countTokens(text: string): number {
  let count = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index++) {
    if (isWhitespace(text.charCodeAt(index))) {
      inWord = false;
    } else if (!inWord) {
      inWord = true;
      count++;
    }
  }
  return count;
}

/** Simulated prompt size: Σ over messages of (countTokens(content text) + 4), plus 2. */
export function countPromptTokens(messages: readonly unknown[]): number {
  let total = TOKENS_PER_PROMPT;
  for (const message of messages) {
    total += countTokens(messageText(message)) + TOKENS_PER_MESSAGE;
  }
  return total;
}
