import { fnv1aHash } from './fnv1a-hash.js';
import { VOCABULARY } from './vocabulary.js';

/** One alternative of a token, as OpenAI's `top_logprobs` entries. */
export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

/** OpenAI's per-token logprob entry (`choices[].logprobs.content[]`). */
export interface TokenLogprob extends TopLogprob {
  top_logprobs: TopLogprob[];
}

function entry(token: string, logprob: number): TopLogprob {
  return { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
}

/**
 * Deterministic logprobs for emitted tokens: each token's logprob is in (-2, 0] and derived
 * from the token, its position and the seed; its `top_logprobs` list the token itself first,
 * then vocabulary words with falling logprobs, `top` entries in all.
 */
export function tokenLogprobs(tokens: readonly string[], seed: number, top: number): TokenLogprob[] {
  return tokens.map((token, position) => {
    const hash = fnv1aHash(`${seed}:${position}:${token}`);
    const logprob = -Math.round(hash % 2000) / 1000;
    const alternatives: TopLogprob[] = [];
    for (let rank = 1; alternatives.length < top - 1 && rank < top + 4; rank++) {
      const word = VOCABULARY[(hash + rank * 7919) % VOCABULARY.length] ?? 'the';
      const candidate = token.startsWith(' ') ? ` ${word}` : word;
      if (candidate !== token && !alternatives.some((alternative) => alternative.token === candidate)) {
        alternatives.push(entry(candidate, Math.round((logprob - rank * 1.25) * 1000) / 1000));
      }
    }
    return { ...entry(token, logprob), top_logprobs: top === 0 ? [] : [entry(token, logprob), ...alternatives] };
  });
}
