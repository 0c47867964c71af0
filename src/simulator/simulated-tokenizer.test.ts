import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countPromptTokens, countTokens } from './simulated-tokenizer.js';

test('countTokens counts whitespace-separated words, punctuation attached', () => {
  assert.equal(countTokens(''), 0);
  assert.equal(countTokens('   \n\t '), 0);
  assert.equal(countTokens('Hello'), 1);
  assert.equal(countTokens('Hello, world.'), 2);
  assert.equal(countTokens('  leading and trailing  '), 3);
  assert.equal(countTokens('tabs\tand\nnew\r\nlines'), 4);
  assert.equal(countTokens('non\u00a0breaking'), 2);
});

test('countPromptTokens adds 4 per message and 2 per prompt', () => {
  assert.equal(countPromptTokens([]), 2);
  assert.equal(countPromptTokens([{ role: 'user', content: 'hello world' }]), 2 + 4 + 2);
  assert.equal(
    countPromptTokens([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one two' },
          { type: 'image_url', image_url: { url: 'x' } },
          { type: 'text', text: 'three' },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [] },
    ]),
    2 + 4 + (3 + 4) + (0 + 4) + 2,
  );
});
