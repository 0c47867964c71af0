import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cancellation } from './cancellation.js';

test('a timeout child fires with its parent, with the same reason', () => {
  const parent = new Cancellation();
  const child = parent.withTimeout(60_000);
  const reason = new Error('client gone');
  parent.abort(reason);
  assert.equal(child.aborted, true);
  assert.equal(child.reason, reason);
});

test('a timeout child fires with a TimeoutError after its time, the parent untouched', async () => {
  const parent = new Cancellation();
  const child = parent.withTimeout(20);
  await sleep(60);
  assert.equal(child.aborted, true);
  assert.equal((child.reason as DOMException).name, 'TimeoutError');
  assert.equal(parent.aborted, false);
});

test('a released timeout child neither times out nor follows its parent', async () => {
  const parent = new Cancellation();
  const child = parent.withTimeout(20);
  child.release();
  await sleep(60);
  assert.equal(child.aborted, false);
  parent.abort(new Error('late'));
  assert.equal(child.aborted, false);
  // Released twice, or a cancellation that is no child: nothing happens.
  child.release();
  parent.release();
});
