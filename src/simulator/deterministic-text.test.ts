import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeterministicText } from './deterministic-text.js';
import { countTokens } from './simulated-tokenizer.js';
import { VOCABULARY } from './vocabulary.js';

test('the same seed gives the same tokens, another seed other tokens', () => {
  assert.deepEqual(new DeterministicText(42).tokens(40), new DeterministicText(42).tokens(40));
  assert.notDeepEqual(new DeterministicText(42).tokens(40), new DeterministicText(43).tokens(40));
});

test('tokens are single words with one leading space, forming sentences', () => {
  for (let seed = 0; seed < 200; seed++) {
    const count = 1 + (seed % 60);
    const tokens = new DeterministicText(seed).tokens(count);
    assert.equal(tokens.length, count);
    tokens.forEach((token, index) => assert.match(token, index === 0 ? /^[A-Z][a-z]*[.,]?$/ : /^ [A-Za-z]+[.,]?$/));
    assert.ok(tokens[tokens.length - 1]?.endsWith('.'), 'last token ends the sentence');
    assert.equal(countTokens(tokens.join('')), count);
    tokens.forEach((token, index) => {
      if (index > 0 && tokens[index - 1]?.endsWith('.')) assert.match(token, /^ [A-Z]/, 'sentence starts capitalised');
    });
  }
});

test('the vocabulary is a few hundred distinct plain words', () => {
  assert.ok(VOCABULARY.length >= 200);
  assert.equal(new Set(VOCABULARY).size, VOCABULARY.length);
  for (const word of VOCABULARY) assert.match(word, /^[a-z]+$/);
});
