import assert from 'node:assert/strict';
import { test } from 'node:test';
import { preferredLanguage } from './preferred-language.js';

test('Russian only when ru ranks above English', () => {
  assert.equal(preferredLanguage(undefined), 'en');
  assert.equal(preferredLanguage('ru'), 'ru');
  assert.equal(preferredLanguage('ru-RU,ru;q=0.9,en;q=0.8'), 'ru');
  assert.equal(preferredLanguage('en-US,en;q=0.9,ru;q=0.8'), 'en');
  assert.equal(preferredLanguage('de, ru;q=0.5'), 'ru');
  assert.equal(preferredLanguage('ru;q=0'), 'en');
  assert.equal(preferredLanguage('*;q=0.9, ru;q=0.5'), 'en');
  assert.equal(preferredLanguage('fr'), 'en');
});
