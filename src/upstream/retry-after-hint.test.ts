import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryAfterHint } from './retry-after-hint.js';

test('Retry-After: delay-seconds, an HTTP date from now, at least 1; anything else is no hint', () => {
  const now = Date.parse('Fri, 27 Nov 2026 17:00:00 GMT');
  assert.equal(retryAfterHint('7', now), 7);
  assert.equal(retryAfterHint(' 30 ', now), 30);
  assert.equal(retryAfterHint('0', now), 1);
  assert.equal(retryAfterHint('Fri, 27 Nov 2026 17:00:20 GMT', now), 20);
  assert.equal(retryAfterHint('Fri, 27 Nov 2026 16:00:00 GMT', now), 1, 'a date gone by');
  assert.equal(retryAfterHint(undefined, now), undefined);
  assert.equal(retryAfterHint('soon', now), undefined);
  assert.equal(retryAfterHint('-5', now), undefined);
  assert.equal(retryAfterHint('1.5', now), undefined);
});
