import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concurrencyShare } from './concurrency-share.js';

const shares = (max: number, instances: number) =>
  Array.from({ length: instances }, (_, rank) => concurrencyShare(max, instances, rank));

test('one instance (or none known) keeps the whole max_concurrency', () => {
  assert.equal(concurrencyShare(3, 1, 0), 3);
  assert.equal(concurrencyShare(64, 0, 0), 64);
});

test('max 3 over two instances: 2 for the first rank, 1 for the second', () => {
  assert.deepEqual(shares(3, 2), [2, 1]);
});

test('the parts add up to max exactly and differ by at most one', () => {
  for (let max = 1; max <= 40; max++) {
    for (let instances = 1; instances <= max; instances++) {
      const parts = shares(max, instances);
      assert.equal(
        parts.reduce((sum, part) => sum + part, 0),
        max,
        `max ${max}, ${instances} instances: ${parts.join(',')}`,
      );
      assert.ok(Math.max(...parts) - Math.min(...parts) <= 1, `max ${max}, ${instances} instances: ${parts.join(',')}`);
      assert.deepEqual(
        parts,
        [...parts].sort((a, b) => b - a),
        'the remainder goes to the lowest ranks',
      );
    }
  }
});

test('more instances than max: each still gets 1 (the sum then exceeds max)', () => {
  assert.deepEqual(shares(2, 5), [1, 1, 1, 1, 1]);
  assert.deepEqual(shares(1, 3), [1, 1, 1]);
});
