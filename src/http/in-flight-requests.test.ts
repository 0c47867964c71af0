import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InFlightRequests } from './in-flight-requests.js';

test('in-flight requests: added entries are counted and listed until removed', () => {
  const inFlight = new InFlightRequests<{ id: string }>();
  const a = { id: 'a' };
  const b = { id: 'b' };
  const c = { id: 'c' };
  const slotA = inFlight.add(a);
  const slotB = inFlight.add(b);
  inFlight.add(c);
  assert.equal(inFlight.size, 3);
  assert.deepEqual([...inFlight], [a, b, c]);
  inFlight.remove(slotB);
  assert.equal(inFlight.size, 2);
  assert.deepEqual([...inFlight], [a, c]);
  // Removing twice does not count twice, nor free the slot twice.
  inFlight.remove(slotB);
  assert.equal(inFlight.size, 2);
  inFlight.remove(slotA);
  assert.deepEqual([...inFlight], [c]);
  assert.equal(inFlight.size, 1);
});

test('in-flight requests: a freed slot is reused, so the slots stay as many as the peak', () => {
  const inFlight = new InFlightRequests<{ n: number }>();
  const slots = Array.from({ length: 8 }, (_, n) => inFlight.add({ n }));
  for (const slot of slots) inFlight.remove(slot);
  assert.equal(inFlight.size, 0);
  for (let round = 0; round < 1000; round++) {
    const slot = inFlight.add({ n: round });
    assert.ok(slot < 8, `slot ${slot} beyond the peak of 8`);
    inFlight.remove(slot);
  }
  const d = { n: -1 };
  const e = { n: -2 };
  const slotD = inFlight.add(d);
  const slotE = inFlight.add(e);
  assert.notEqual(slotD, slotE);
  assert.deepEqual(new Set(inFlight), new Set([d, e]));
});

test('in-flight requests: entries removed while iterating are skipped, the rest still listed', () => {
  const inFlight = new InFlightRequests<{ n: number }>();
  const entries = Array.from({ length: 5 }, (_, n) => ({ n }));
  const slots = entries.map((entry) => inFlight.add(entry));
  const seen: number[] = [];
  for (const entry of inFlight) {
    seen.push(entry.n);
    // Ending one request can end others (the graceful stop cuts them one by one).
    if (entry.n === 1) inFlight.remove(slots[3] as number);
    inFlight.remove(slots[entry.n] as number);
  }
  assert.deepEqual(seen, [0, 1, 2, 4]);
  assert.equal(inFlight.size, 0);
});
