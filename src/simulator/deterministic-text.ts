import { mulberry32, type RandomSource } from './mulberry32.js';
import { VOCABULARY } from './vocabulary.js';

const MIN_SENTENCE_WORDS = 4;
const MAX_SENTENCE_WORDS = 12;
const COMMA_PROBABILITY = 0.08;

/**
 * Seeded generator of sentence-like text, one token at a time. A token is one word with
 * its leading space (" word"); the very first token has none. Same seed → same tokens.
 */
export class DeterministicText {
  readonly #random: RandomSource;
  #previousWord = '';

  constructor(seed: number) {
    this.#random = mulberry32(seed);
  }

  /**
   * Next `count` tokens forming whole sentences: the first word of each sentence is
   * capitalised and the last token ends with a period.
   */
  tokens(count: number): string[] {
    const tokens: string[] = [];
    let wordsLeftInSentence = 0;
    for (let index = 0; index < count; index++) {
      const startsSentence = wordsLeftInSentence === 0;
      if (startsSentence) wordsLeftInSentence = this.#sentenceLength(count - index);
      let word = this.#pickWord();
      if (startsSentence) word = word.charAt(0).toUpperCase() + word.slice(1);
      wordsLeftInSentence--;
      if (wordsLeftInSentence === 0) word += '.';
      else if (!startsSentence && wordsLeftInSentence > 1 && this.#random() < COMMA_PROBABILITY) word += ',';
      tokens.push(index === 0 ? word : ` ${word}`);
    }
    return tokens;
  }

  /** Words in the next sentence; never leaves a tail shorter than a sentence. */
  #sentenceLength(wordsLeft: number): number {
    const span = MAX_SENTENCE_WORDS - MIN_SENTENCE_WORDS + 1;
    const length = MIN_SENTENCE_WORDS + Math.floor(this.#random() * span);
    return wordsLeft - length < MIN_SENTENCE_WORDS ? wordsLeft : length;
  }

  /** A vocabulary word, never the same as the one before (no "the the"). */
  #pickWord(): string {
    let word = this.#previousWord;
    while (word === this.#previousWord) word = VOCABULARY[Math.floor(this.#random() * VOCABULARY.length)] ?? 'the';
    this.#previousWord = word;
    return word;
  }
}
