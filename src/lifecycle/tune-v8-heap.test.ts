import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEAP_GROWING_PERCENT, tuneV8Heap } from './tune-v8-heap.js';

const OURS = [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, '--no-allocation-site-pretenuring'];

test('sets the heap flags the operator did not give', () => {
  const set: string[] = [];
  const setFlags = (flags: string) => set.push(flags);
  assert.deepEqual(tuneV8Heap({ execArgv: [], setFlags }), OURS);
  assert.deepEqual(set, OURS);
  // Look-alike flags are not the operator's value of ours.
  assert.deepEqual(
    tuneV8Heap({ execArgv: ['--heap-growing-percentage=1', '--max-old-space-size=512'], setFlags }),
    OURS,
  );
});

test("leaves an operator's own value of each flag alone", () => {
  const set: string[] = [];
  const setFlags = (flags: string) => set.push(flags);
  assert.deepEqual(tuneV8Heap({ execArgv: ['--heap-growing-percent=0'], setFlags }), [OURS[1]]);
  assert.deepEqual(tuneV8Heap({ execArgv: ['--heap_growing_percent=20'], setFlags }), [OURS[1]]);
  assert.deepEqual(tuneV8Heap({ execArgv: ['--allocation-site-pretenuring'], setFlags }), [OURS[0]]);
  assert.deepEqual(
    tuneV8Heap({ execArgv: ['--no_allocation_site_pretenuring', '--heap-growing-percent=70'], setFlags }),
    [],
  );
  assert.deepEqual(set, [OURS[1], OURS[1], OURS[0]]);
});
