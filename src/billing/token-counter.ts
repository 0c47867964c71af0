/**
 * Counts tokens with a real BPE tokenizer (gpt-tokenizer, o200k_base). The tokenizer's
 * tables take about 0.4 s to load, so they load in the background at start and the few
 * requests that arrive before that wait for them.
 */
type CountTokens = (text: string) => number;

const NO_SPECIAL_TOKENS = { disallowedSpecial: new Set<string>() };

let counter: CountTokens | undefined;
let loading: Promise<CountTokens> | undefined;

export function loadTokenCounter(): Promise<CountTokens> {
  loading ??= import('gpt-tokenizer').then((module) => {
    // User text may contain "<|endoftext|>" and the like: count it as plain text.
    counter = (text) => module.countTokens(text, NO_SPECIAL_TOKENS);
    return counter;
  });
  return loading;
}

/** The counter if loaded, else a promise of it; lets the hot path skip an await. */
export function tokenCounter(): CountTokens | Promise<CountTokens> {
  return counter ?? loadTokenCounter();
}
