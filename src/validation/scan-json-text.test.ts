import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scanJsonText } from './scan-json-text.js';

const depthOk = (text: string, maxDepth: number) => !scanJsonText(text, maxDepth).tooDeep;

test('depth counts arrays and objects together, exactly at the limit', () => {
  assert.equal(depthOk('[[[]]]', 3), true);
  assert.equal(depthOk('[[[[]]]]', 3), false);
  assert.equal(depthOk('{"a":[{"b":[]}]}', 4), true);
  assert.equal(depthOk('{"a":[{"b":[{}]}]}', 4), false);
  assert.equal(depthOk('[[],[],[],[]]', 2), true, 'siblings do not add up');
});

test('brackets inside strings do not count, whatever the escapes before the closing quote', () => {
  assert.equal(depthOk('{"a":"[[[[{{{{"}', 1), true);
  assert.equal(depthOk('{"a":"\\"[[[[","b":1}', 1), true, 'an escaped quote does not end the string');
  assert.equal(depthOk('{"a":"\\\\","b":[[1]]}', 2), false, 'an escaped backslash does: the brackets after it count');
  assert.equal(depthOk('{"a":"\\\\\\"[[[","b":1}', 1), true, 'three backslashes: the quote is escaped');
  assert.equal(depthOk('{"a\\"[[[":1}', 1), true, 'keys are strings too');
});

test('10,000 levels are refused without recursion, and the scan stops at the first level too many', () => {
  const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  assert.equal(depthOk(deep, 64), false);
  assert.equal(depthOk(deep, 10_000), true);
});

test('a number literal that overflows a double is found; finite ones, strings and words are not', () => {
  const infinite = (text: string) => scanJsonText(text, 64).hasInfiniteNumber;
  for (const text of [
    '1e400',
    '[-1e400]',
    '{"a":1E+309}',
    '{"a":1e0000400}',
    `[${'9'.repeat(310)}]`,
    `[${'9'.repeat(211)}e99]`,
  ]) {
    assert.equal(infinite(text), true, text);
  }
  for (const text of [
    '1e308',
    '[-1.7976931348623157e308]',
    '[1e-400]',
    '["1e400"]',
    '{"1e400":true}',
    '[true,false,null]',
    `[${'9'.repeat(200)}e99]`,
  ]) {
    assert.equal(infinite(text), false, text);
  }
});
