import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import { loadTokenCounter, MAX_TOKENIZED_PIECE } from './token-counter.js';

const PLAIN = { disallowedSpecial: new Set<string>() };

test('prose longer than one piece counts exactly as the tokenizer counts it whole', async () => {
  const count = await loadTokenCounter();
  const prose = 'The quick brown fox jumps over the lazy dog.\nPack my box with five dozen liquor jugs. '.repeat(400);
  assert.ok(prose.length > 20 * MAX_TOKENIZED_PIECE);
  assert.equal(count(prose), countTokens(prose, PLAIN));
});

// Issue 28 finding 7: the tokenizer's merge step is quadratic in a run without whitespace
// (64,000 letters took 5 s, 3.9 MB hours), so one count_tokens request could hold the event
// loop for as long as it liked. Counted in pieces, 2 million letters take milliseconds; the
// time-out only catches a counter that went back to quadratic (it would take hours).
test(
  'a 2 MB run without whitespace is counted in linear time, a little high rather than low',
  { timeout: 20_000 },
  async () => {
    const count = await loadTokenCounter();
    const run = 'abcdefghijklmnopqrstuvwxyz'.repeat(80_000);
    const sample = run.slice(0, 8 * MAX_TOKENIZED_PIECE);
    const exactSample = countTokens(sample, PLAIN);
    assert.ok(count(sample) >= exactSample, 'never lower than the exact count');
    const tokens = count(run);
    const perPiece = exactSample / 8;
    assert.ok(tokens >= ((perPiece * run.length) / MAX_TOKENIZED_PIECE) * 0.9, `${tokens} tokens`);
    // Surrogate pairs are never cut in half: a run of emoji counts as whole characters.
    const emoji = '😀'.repeat(3 * MAX_TOKENIZED_PIECE);
    assert.ok(count(emoji) > 0);
    assert.equal(count(emoji.slice(0, MAX_TOKENIZED_PIECE)), countTokens(emoji.slice(0, MAX_TOKENIZED_PIECE), PLAIN));
  },
);
