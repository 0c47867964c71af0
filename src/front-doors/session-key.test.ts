import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { sessionKeyOf } from './session-key.js';

const withHeaders = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

test('x-session-id wins, then x-claude-code-session-id, then the first non-empty field', () => {
  const fromHeader = sessionKeyOf(withHeaders({ 'x-session-id': 'a', 'x-claude-code-session-id': 'b' }), 'c');
  assert.equal(fromHeader, sessionKeyOf(withHeaders({}), 'a'));
  assert.equal(sessionKeyOf(withHeaders({ 'x-claude-code-session-id': 'b' }), 'c'), sessionKeyOf(withHeaders({}), 'b'));
  assert.equal(
    sessionKeyOf(withHeaders({ 'x-session-id': '' }), undefined, '', 'c'),
    sessionKeyOf(withHeaders({}), 'c'),
  );
  assert.equal(sessionKeyOf(withHeaders({}), undefined, null, ''), undefined);
});

test('the key is a bounded hash: 16 hex characters whatever its length, equal for equal ids', () => {
  const long = sessionKeyOf(withHeaders({ 'x-session-id': 's'.repeat(100_000) }));
  assert.match(long ?? '', /^[0-9a-f]{16}$/);
  assert.notEqual(sessionKeyOf(withHeaders({}), 'session-1'), sessionKeyOf(withHeaders({}), 'session-2'));
});
