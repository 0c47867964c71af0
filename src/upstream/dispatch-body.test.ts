import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UpstreamCall } from '../providers/types.js';
import { dispatchOptions, ONE_SHOT_BODY_MIN_CHARACTERS } from './dispatch-body.js';

// Which form undici is given; what the node receives is node-client.test.ts's, over HTTP.

const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer node-secret' };

function call(characters: number, stream: boolean): UpstreamCall {
  return { path: '/chat/completions', headers: HEADERS, body: 'é'.repeat(characters), stream };
}

async function chunksOf(body: unknown): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
  return chunks;
}

test('JSON calls and small streamed bodies are given as they are: the string, the call’s own headers', () => {
  for (const small of [call(ONE_SHOT_BODY_MIN_CHARACTERS, false), call(ONE_SHOT_BODY_MIN_CHARACTERS - 1, true)]) {
    const given = dispatchOptions('/v1/chat/completions', small);
    assert.equal(given.body, small.body);
    assert.equal(given.headers, small.headers);
  }
});

test('a large streamed body: one Buffer of its UTF-8 bytes, once; its byte length as content-length', async () => {
  const large = call(ONE_SHOT_BODY_MIN_CHARACTERS, true);
  const given = dispatchOptions('/v1/chat/completions', large);
  const bytes = Buffer.from(large.body);
  assert.deepEqual(given.headers, { ...HEADERS, 'content-length': String(bytes.length) });
  assert.equal(bytes.length, 2 * large.body.length, 'two bytes per é: the length is counted in bytes');
  assert.deepEqual(large.headers, HEADERS, 'the call’s headers are not changed');

  const chunks = await chunksOf(given.body);
  assert.equal(chunks.length, 1);
  assert.ok(chunks[0]?.equals(bytes));
  assert.deepEqual(await chunksOf(given.body), [], 'handed out once: nothing is kept to give again');
});
