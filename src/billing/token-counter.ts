/**
 * Counts tokens with a real BPE tokenizer (gpt-tokenizer, o200k_base). The tokenizer's
 * tables take about 0.4 s to load, so they load in the background at start and the few
 * requests that arrive before that wait for them.
 */
type CountTokens = (text: string) => number;

const NO_SPECIAL_TOKENS = { disallowedSpecial: new Set<string>() };

/**
 * Longest piece of text handed to the tokenizer at once. Its merge step is quadratic in the
 * length of a run without whitespace (64,000 letters: 5 s; 3.9 MB: hours), so a longer text
 * is counted piece by piece, cut before the last single space between two words within this
 * length (where the tokenizer starts a new token anyway: prose counts exactly), or hard
 * within a run that has none: linear in the text, a run without whitespace counted at most
 * a token or so high per cut.
 */
export const MAX_TOKENIZED_PIECE = 1024;

let counter: CountTokens | undefined;
let loading: Promise<CountTokens> | undefined;

export function loadTokenCounter(): Promise<CountTokens> {
  loading ??= import('gpt-tokenizer').then((module) => {
    // User text may contain "<|endoftext|>" and the like: count it as plain text.
    const countPiece = (text: string) => module.countTokens(text, NO_SPECIAL_TOKENS);
    counter = (text) => (text.length <= MAX_TOKENIZED_PIECE ? countPiece(text) : countInPieces(text, countPiece));
    return counter;
  });
  return loading;
}

/** The counter if loaded, else a promise of it; lets the hot path skip an await. */
export function tokenCounter(): CountTokens | Promise<CountTokens> {
  return counter ?? loadTokenCounter();
}

/** `text` counted in pieces of at most MAX_TOKENIZED_PIECE characters (see there). */
function countInPieces(text: string, countPiece: CountTokens): number {
  let tokens = 0;
  let start = 0;
  while (start < text.length) {
    let end = start + MAX_TOKENIZED_PIECE;
    if (end >= text.length) end = text.length;
    else {
      const breakAt = wordBreakBefore(text, start, end);
      if (breakAt > start) end = breakAt;
      // Never between the two halves of a surrogate pair.
      else if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
    }
    tokens += countPiece(text.slice(start, end));
    start = end;
  }
  return tokens;
}

/** The last index in (start, end] of a space with a non-space on either side; `start` when there is none. */
function wordBreakBefore(text: string, start: number, end: number): number {
  for (let index = end; index > start + 1; index--) {
    if (
      text.charCodeAt(index) === SPACE &&
      !isSpace(text.charCodeAt(index - 1)) &&
      !isSpace(text.charCodeAt(index + 1))
    )
      return index;
  }
  return start;
}

const SPACE = 0x20;

/** Whitespace as the tokenizer's pre-split sees it (enough for ASCII prose; others only cost a token). */
function isSpace(code: number): boolean {
  return code === SPACE || code === 0x0a || code === 0x0d || code === 0x09;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
