import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Dispatcher } from 'undici';
import { Cancellation } from './cancellation.js';
import { UpstreamCall } from './upstream-call.js';

// UpstreamCall is undici's handler for one node request; here undici's calls are made by
// hand, in the order undici makes them, with a controller that records pause and resume.

function controller() {
  const state = { paused: false, aborted: false, reason: null as Error | null, pauses: 0, resumes: 0 };
  const handle = {
    get paused() {
      return state.paused;
    },
    get aborted() {
      return state.aborted;
    },
    get reason() {
      return state.reason;
    },
    pause() {
      state.paused = true;
      state.pauses++;
    },
    resume() {
      state.paused = false;
      state.resumes++;
    },
    abort(reason: Error) {
      state.aborted = true;
      state.reason = reason;
    },
  };
  return { state, handle: handle as unknown as Dispatcher.DispatchController };
}

async function started(call: UpstreamCall, handle: Dispatcher.DispatchController) {
  call.onRequestStart(handle);
  call.onResponseStart(handle, 200, { 'content-type': 'application/json' });
  return call.promise;
}

test('text(): chunks that came before and after the call, a character split between chunks, one text', async () => {
  const { handle } = controller();
  const call = new UpstreamCall(new Cancellation());
  const response = await started(call, handle);
  const bytes = Buffer.from('{"content":"Grüße aus dem Stellwerk 日本"}');
  const cut = bytes.indexOf(Buffer.from('ü')) + 1; // inside the two bytes of ü
  call.onResponseData(handle, bytes.subarray(0, cut));
  const text = response.body.text();
  call.onResponseData(handle, bytes.subarray(cut, cut + 5));
  call.onResponseData(handle, bytes.subarray(cut + 5));
  call.onResponseEnd();
  assert.equal(await text, bytes.toString('utf8'));
});

test('text() after the body ended, and of an empty body', async () => {
  const { handle } = controller();
  const call = new UpstreamCall(new Cancellation());
  const response = await started(call, handle);
  call.onResponseData(handle, Buffer.from('{"a":'));
  call.onResponseData(handle, Buffer.from('1}'));
  call.onResponseEnd();
  assert.equal(await response.body.text(), '{"a":1}');

  const empty = new UpstreamCall(new Cancellation());
  const emptyResponse = await started(empty, handle);
  empty.onResponseEnd();
  assert.equal(await emptyResponse.body.text(), '');
});

test('text() reads past the high-water mark: a paused socket is resumed and not paused again', async () => {
  const { state, handle } = controller();
  const call = new UpstreamCall(new Cancellation());
  const response = await started(call, handle);
  const piece = Buffer.alloc(40 * 1024, 'a');
  call.onResponseData(handle, piece);
  call.onResponseData(handle, piece);
  assert.equal(state.paused, true, 'paused above 64 KB while nobody reads');
  const text = response.body.text();
  assert.equal(state.paused, false, 'resumed by text()');
  for (let i = 0; i < 5; i++) call.onResponseData(handle, piece);
  assert.equal(state.paused, false);
  assert.equal(state.pauses, 1);
  call.onResponseEnd();
  assert.equal((await text)?.length, 7 * piece.length);
});

test('text(limit): a body that grows past the limit is torn down and answers undefined, before or after the call', async () => {
  const { state, handle } = controller();
  const call = new UpstreamCall(new Cancellation());
  const response = await started(call, handle);
  const text = response.body.text(100);
  call.onResponseData(handle, Buffer.alloc(60, 'a'));
  assert.equal(state.aborted, false);
  call.onResponseData(handle, Buffer.alloc(60, 'a'));
  assert.equal(state.aborted, true, 'the request is aborted as soon as the limit is passed');
  assert.equal(await text, undefined);

  const early = controller();
  const before = new UpstreamCall(new Cancellation());
  const beforeResponse = await started(before, early.handle);
  before.onResponseData(early.handle, Buffer.alloc(120, 'a'));
  assert.equal(await beforeResponse.body.text(100), undefined);
  assert.equal(early.state.aborted, true);
});

test('text() rejects with the body error; a cancelled call aborts the request', async () => {
  const { handle } = controller();
  const call = new UpstreamCall(new Cancellation());
  const response = await started(call, handle);
  const text = response.body.text();
  call.onResponseData(handle, Buffer.from('{"partial":'));
  const failure = new Error('other side closed');
  call.onResponseError(handle, failure);
  await assert.rejects(text, failure);
  await assert.rejects(response.body.text(), failure, 'and again after');

  const cancellation = new Cancellation();
  const cut = controller();
  const cancelled = new UpstreamCall(cancellation);
  const cancelledResponse = await started(cancelled, cut.handle);
  const pending = cancelledResponse.body.text();
  const reason = new Error('client gone');
  cancellation.abort(reason);
  assert.equal(cut.state.reason, reason);
  cancelled.onResponseError(cut.handle, reason);
  await assert.rejects(pending, reason);
});
