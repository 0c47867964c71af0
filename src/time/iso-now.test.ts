import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoNow } from './iso-now.js';

test('isoNow equals Date#toISOString across seconds, days, years and backwards steps', () => {
  const instants = [
    0,
    999,
    1000,
    1001,
    86_399_999,
    86_400_000,
    Date.UTC(2026, 11, 31, 23, 59, 59, 999),
    Date.UTC(2027, 0, 1),
    Date.UTC(2026, 10, 22, 5, 0, 0, 500),
    Date.UTC(2026, 10, 22, 4, 59, 59, 1),
    Date.UTC(2026, 10, 22, 5, 0, 0, 0),
  ];
  for (let step = 0; step < 5_000; step++)
    instants.push(Date.UTC(2026, 10, 22) + Math.floor(Math.random() * 10_000_000));
  for (const instant of instants) assert.equal(isoNow(instant), new Date(instant).toISOString(), String(instant));
  const before = Date.now();
  const text = isoNow();
  assert.ok(Date.parse(text) >= before && Date.parse(text) <= Date.now());
});
