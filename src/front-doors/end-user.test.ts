import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { endUserOf, MAX_END_USER_LENGTH } from './end-user.js';

const withHeaders = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

test('the x-switchyard-user header wins over the body fields', () => {
  assert.equal(endUserOf(withHeaders({ 'x-switchyard-user': 'alice' }), 'bob', 'carol'), 'alice');
});

test('without the header, the first non-empty field names the end user', () => {
  assert.equal(endUserOf(withHeaders({}), undefined, '', null, 'carol'), 'carol');
  assert.equal(endUserOf(withHeaders({ 'x-switchyard-user': '' }), 'bob'), 'bob');
  assert.equal(endUserOf(withHeaders({}), undefined, null), undefined);
});

test('an end user longer than 128 characters is cut, not refused', () => {
  const named = endUserOf(withHeaders({}), 'u'.repeat(1000));
  assert.equal(named?.length, MAX_END_USER_LENGTH);
});
