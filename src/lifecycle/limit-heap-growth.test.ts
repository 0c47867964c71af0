import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from './limit-heap-growth.js';

test('sets --heap-growing-percent unless the operator gave one', () => {
  const set: string[] = [];
  const setFlags = (flags: string) => set.push(flags);
  assert.equal(limitHeapGrowth({ execArgv: [], nodeOptions: '', setFlags }), true);
  assert.deepEqual(set, [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  assert.equal(limitHeapGrowth({ execArgv: ['--heap-growing-percent=0'], nodeOptions: '', setFlags }), false);
  assert.equal(
    limitHeapGrowth({ execArgv: [], nodeOptions: '--max-old-space-size=512 --heap_growing_percent=20', setFlags }),
    false,
  );
  assert.equal(limitHeapGrowth({ execArgv: ['--heap-growing-percentage=1'], nodeOptions: '', setFlags }), true);
  assert.equal(set.length, 2);
});
