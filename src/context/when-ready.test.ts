import assert from 'node:assert/strict';
import { test } from 'node:test';
import { whenReady } from './when-ready.js';

test('a ready value goes on at once, in the same turn', () => {
  let seen: number | undefined;
  const result = whenReady(2, (value) => (seen = value * 10));
  assert.equal(seen, 20);
  assert.equal(result, 20);
});

test('a promise goes on once it fulfils', async () => {
  let seen: number | undefined;
  const result = whenReady(Promise.resolve(3), (value) => (seen = value * 10));
  assert.equal(seen, undefined);
  assert.equal(await result, 30);
});

test('a rejection goes to `failed` when given, and `next` is not called', async () => {
  let called = false;
  const failure = new Error('no');
  const result = whenReady(
    Promise.reject(failure),
    () => (called = true),
    (error) => Promise.reject(new Error('refused', { cause: error })),
  );
  await assert.rejects(
    Promise.resolve(result),
    (error: Error) => error.message === 'refused' && error.cause === failure,
  );
  assert.equal(called, false);
});
