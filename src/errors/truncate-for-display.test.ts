import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gatewayError } from './gateway-error.js';
import { MAX_DISPLAY_CHARS, truncateForDisplay } from './truncate-for-display.js';

test('short strings are unchanged; long ones keep their start and say how much was cut', () => {
  assert.equal(truncateForDisplay('gpt-4o'), 'gpt-4o');
  assert.equal(truncateForDisplay('x'.repeat(MAX_DISPLAY_CHARS)), 'x'.repeat(MAX_DISPLAY_CHARS));
  assert.equal(
    truncateForDisplay('x'.repeat(1000)),
    `${'x'.repeat(MAX_DISPLAY_CHARS)}…[+${1000 - MAX_DISPLAY_CHARS} chars]`,
  );
});

test('never splits a surrogate pair, and a cut string is not cut again', () => {
  const emoji = `${'y'.repeat(MAX_DISPLAY_CHARS - 1)}😀${'z'.repeat(50)}`;
  const cut = truncateForDisplay(emoji);
  assert.equal(cut, `${'y'.repeat(MAX_DISPLAY_CHARS - 1)}…[+52 chars]`);
  assert.equal(truncateForDisplay(cut), cut);
  const long = truncateForDisplay('x'.repeat(5000));
  assert.equal(truncateForDisplay(long), long);
});

test('an error handed on keeps the first cut: the count still tells the original length', () => {
  const first = gatewayError('bad_gateway', { params: { reason: 'r'.repeat(10_000) } });
  const again = gatewayError('bad_gateway', { params: first.params });
  assert.equal(again.message, first.message);
  assert.match(again.message, /…\[\+8976 chars\]\.$/);
  assert.equal(
    gatewayError('model_unavailable', { param: 'p'.repeat(10_000) }).param,
    `${'p'.repeat(MAX_DISPLAY_CHARS)}…[+${10_000 - MAX_DISPLAY_CHARS} chars]`,
  );
});
