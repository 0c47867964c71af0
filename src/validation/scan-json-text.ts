/** What one pass over a JSON text found, before it is parsed. */
export interface JsonTextScan {
  /** Arrays and objects open inside each other at some point exceed the depth asked for. */
  readonly tooDeep: boolean;
  /** A number literal is too large for a double (`1e400`): JSON.parse would make it ±Infinity. */
  readonly hasInfiniteNumber: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const POINT = 0x2e;
const PLUS = 0x2b;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
/**
 * Literals this short with an exponent of at most two digits are finite: reaching 1.8e308
 * with an exponent below 100 takes more than 200 digits.
 */
const LONG_NUMBER_LENGTH = 200;

/**
 * One linear pass over a JSON text, without recursion and without building anything:
 * the deepest nesting of arrays and objects (stops at `maxDepth` + 1, so a body of
 * 10,000 `[` costs as little as one of 65), and whether a number literal overflows to
 * Infinity. Strings are skipped with `indexOf` (their content is most of a chat body);
 * a quote ends a string when an even number of backslashes precedes it. Malformed text
 * gives some answer: JSON.parse, which runs next, refuses it anyway.
 */
export function scanJsonText(text: string, maxDepth: number): JsonTextScan {
  let depth = 0;
  let hasInfiniteNumber = false;
  const length = text.length;
  let at = 0;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = stringEnd(text, at + 1);
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > maxDepth) return { tooDeep: true, hasInfiniteNumber };
      at++;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      at++;
    } else if (code === MINUS || (code >= ZERO && code <= NINE)) {
      const start = at;
      let exponentDigits = -1;
      for (at++; at < length; at++) {
        const next = text.charCodeAt(at);
        if (next >= ZERO && next <= NINE) {
          if (exponentDigits >= 0) exponentDigits++;
        } else if (next === LOWER_E || next === UPPER_E) exponentDigits = 0;
        else if (next !== POINT && next !== PLUS && next !== MINUS) break;
      }
      // ±Infinity needs a value of 1.8e308 or more: an exponent of three digits or more, or a long literal.
      if (
        !hasInfiniteNumber &&
        (exponentDigits >= 3 || at - start > LONG_NUMBER_LENGTH) &&
        !Number.isFinite(Number(text.slice(start, at)))
      ) {
        hasInfiniteNumber = true;
      }
    } else {
      at++;
    }
  }
  return { tooDeep: false, hasInfiniteNumber };
}

/** Index just past the quote that closes the string whose content starts at `from` (the text's length if none does). */
function stringEnd(text: string, from: number): number {
  let start = from;
  for (;;) {
    const quote = text.indexOf('"', start);
    if (quote === -1) return text.length;
    let backslashes = 0;
    // Bounded by `start`: the character before `start` is a quote, never part of a run of backslashes.
    for (let before = quote - 1; before >= start && text.charCodeAt(before) === BACKSLASH; before--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    start = quote + 1;
  }
}
