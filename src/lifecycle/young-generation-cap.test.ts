import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { holdYoungGeneration } from './young-generation-cap.js';

const MIB = 1024 * 1024;

/** Allocates short-lived garbage until V8 has run a few young collections. */
async function collectSomeGarbage(): Promise<void> {
  let sink: unknown[] = [];
  for (let round = 0; round < 20; round++) {
    for (let index = 0; index < 50_000; index++) sink.push({ index, text: `garbage ${index}` });
    sink = [];
    await sleep(1);
  }
}

test('an operator flag for the young generation leaves it alone', () => {
  for (const given of [
    { execArgv: ['--max-semi-space-size=64'] },
    { execArgv: ['--semi_space_growth_factor=4'] },
    { execArgv: [], nodeOptions: '--max-old-space-size=512 --min-semi-space-size=4' },
  ]) {
    const set: string[] = [];
    const cap = holdYoungGeneration({ nodeOptions: '', ...given, setFlags: (flags) => set.push(flags) });
    cap.release(16);
    cap.stop();
    assert.deepEqual(set, [], JSON.stringify(given));
  }
});

test('holds the young generation at start, then lets it grow under load only up to the cap', async () => {
  const set: string[] = [];
  let newSpace = 2 * MIB;
  const cap = holdYoungGeneration({
    execArgv: ['--max-old-space-size=512'],
    nodeOptions: '',
    setFlags: (flags) => set.push(flags),
    newSpaceBytes: () => newSpace,
  });
  assert.deepEqual(set, ['--semi-space-growth-factor=1']);
  try {
    cap.release(16);
    assert.deepEqual(set.slice(1), [], 'no collection yet: no growth');
    await collectSomeGarbage();
    assert.ok(set.includes('--semi-space-growth-factor=2'), 'collections close together: it may grow');
    newSpace = 16 * MIB;
    const atCap = set.length;
    await collectSomeGarbage();
    assert.ok(!set.slice(atCap).includes('--semi-space-growth-factor=2'), 'at the cap: it may not grow');
    assert.equal(set.at(-1), '--semi-space-growth-factor=1');
    // V8 shrank it (allocation slowed down): it may grow again.
    newSpace = 1 * MIB;
    const shrunk = set.length;
    await collectSomeGarbage();
    assert.ok(set.slice(shrunk).includes('--semi-space-growth-factor=2'));
  } finally {
    cap.stop();
  }
});
