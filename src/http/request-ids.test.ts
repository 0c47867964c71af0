import assert from 'node:assert/strict';
import { test } from 'node:test';
import { correlationIdFor, newRequestId } from './request-ids.js';

test('request ids are unique and sort in creation order', () => {
  const ids = Array.from({ length: 5000 }, () => newRequestId());
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  assert.match(ids[0] as string, /^req_[0-9A-HJKMNP-TV-Z]{24}$/);
});

test("the client's correlation id is kept only when sane", () => {
  assert.equal(correlationIdFor('order-42:retry.1', 'req_x'), 'order-42:retry.1');
  assert.equal(correlationIdFor(undefined, 'req_x'), 'req_x');
  assert.equal(correlationIdFor('has space', 'req_x'), 'req_x');
  assert.equal(correlationIdFor('x'.repeat(129), 'req_x'), 'req_x');
  assert.equal(correlationIdFor('<script>', 'req_x'), 'req_x');
  assert.equal(correlationIdFor(['a', 'b'], 'req_x'), 'req_x');
});
