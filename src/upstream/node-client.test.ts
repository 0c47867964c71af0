import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fixtureNode } from '../../test/support/adapter-fixtures.js';
import type { UpstreamCall as UpstreamRequest } from '../providers/types.js';
import { Cancellation } from './cancellation.js';
import { ONE_SHOT_BODY_MIN_CHARACTERS } from './dispatch-body.js';
import { NodeClient, type UpstreamResponse } from './node-client.js';

// NodeClient against a real node:http server on port 0: what the node receives of a large
// streamed request, a reply that keeps streaming, and that the request body is let go of
// while the reply is still held (dispatch-body.ts).

// A full collection on demand without `--expose-gc` on the command line: the flag set at run
// time, `gc` read from a fresh context (node's test runner starts this file without it).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** What the node received of one request. */
interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly socket: Socket;
}

const EVENTS = ['data: {"n":1}\n\n', 'data: {"n":2}\n\n', 'data: [DONE]\n\n'];
const received: Received[] = [];
/** Replies still held open: the first event sent, the rest when the test lets them go. */
const held: ServerResponse[] = [];
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({
      path: request.url ?? '',
      headers: request.headers,
      body: Buffer.concat(chunks),
      socket: request.socket,
    });
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(EVENTS[0]);
    held.push(response);
  });
});
let client: NodeClient;

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new NodeClient({
    ...fixtureNode('openai'),
    baseUrl: `http://127.0.0.1:${port}/v1`,
    maxConcurrency: 4,
    timeouts: { connectMs: 5_000, firstByteMs: 5_000, idleMs: 5_000, totalMs: 10_000, minTokensPerSecond: 1 },
  });
});

after(async () => {
  await client.close();
  server.close();
});

/** A chat body of about `characters` characters, with non-ASCII text so bytes and characters differ. */
function chatBody(characters: number): string {
  const filler = 'Stellwerk Grüße 日本 '.repeat(Math.ceil(characters / 19));
  return JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: filler }] });
}

function call(path: string, body: string, stream: boolean): UpstreamRequest {
  return { path, headers: { 'content-type': 'application/json' }, body, stream };
}

/** Sends the held replies' remaining events and ends them. */
function releaseHeld(): void {
  for (const response of held.splice(0)) response.end(EVENTS.slice(1).join(''));
}

/** The rest of a reply, as text. */
async function readRest(iterator: AsyncIterator<Buffer>): Promise<string> {
  let text = '';
  for (let next = await iterator.next(); next.done !== true; next = await iterator.next())
    text += next.value.toString();
  return text;
}

/** The reply's first chunk, once it arrived: by then the node has read the whole request body. */
async function firstChunk(response: UpstreamResponse): Promise<{ text: string; rest: AsyncIterator<Buffer> }> {
  const iterator = response.body[Symbol.asyncIterator]();
  const first = await iterator.next();
  assert.equal(first.done, false);
  return { text: first.value.toString(), rest: iterator };
}

/** Weak references to the body chunks undici writes (its public `undici:request:bodyChunkSent` channel), by path. */
function watchSentChunks(): { chunks: Map<string, WeakRef<Buffer>>; stop: () => void } {
  const chunks = new Map<string, WeakRef<Buffer>>();
  const onChunk = (message: unknown): void => {
    const { request, chunk } = message as { request: { path: string }; chunk: Buffer };
    chunks.set(request.path, new WeakRef(chunk));
  };
  subscribe('undici:request:bodyChunkSent', onChunk);
  return { chunks, stop: () => unsubscribe('undici:request:bodyChunkSent', onChunk) };
}

test('a large streamed request reaches the node whole, with its content-length, not chunked; the reply streams', async () => {
  const body = chatBody(4 * ONE_SHOT_BODY_MIN_CHARACTERS);
  const bytes = Buffer.from(body);
  assert.ok(bytes.length > body.length, 'multi-byte characters: the length sent is bytes, not characters');

  const response = await client.send(call('/chat/completions', body, true), new Cancellation());
  assert.equal(response.statusCode, 200);
  const { text, rest } = await firstChunk(response);
  assert.equal(text, EVENTS[0], 'the first event arrives while the reply is held');
  const [node] = received.splice(0);
  assert.ok(node);
  assert.equal(node.path, '/v1/chat/completions');
  assert.ok(node.body.equals(bytes), 'byte for byte the body sent');
  assert.equal(node.headers['content-length'], String(bytes.length));
  assert.equal(node.headers['transfer-encoding'], undefined);
  assert.equal(node.headers['content-type'], 'application/json');

  releaseHeld();
  assert.equal(await readRest(rest), EVENTS.slice(1).join(''));

  // The connection is kept alive: the next one-shot body goes over the same socket (once the
  // pool saw it free again: undici frees it after handing on the reply's end).
  await nextTurn();
  const again = await client.send(call('/chat/completions', body, true), new Cancellation());
  const second = await firstChunk(again);
  const [nodeAgain] = received.splice(0);
  assert.ok(nodeAgain);
  assert.ok(nodeAgain.body.equals(bytes));
  assert.equal(nodeAgain.socket, node.socket, 'the keep-alive connection was reused');
  releaseHeld();
  await readRest(second.rest);
});

test('a held stream lets go of its large request body once written; a JSON call keeps it for its reply', async (t) => {
  const watch = watchSentChunks();
  t.after(watch.stop);
  const body = chatBody(4 * ONE_SHOT_BODY_MIN_CHARACTERS);

  const streamed = await client.send(call('/streamed', body, true), new Cancellation());
  const json = await client.send(call('/json', body, false), new Cancellation());
  const streamedReply = await firstChunk(streamed);
  const jsonReply = await firstChunk(json);
  assert.equal(received.splice(0).length, 2, 'both bodies reached the node');
  // Past the turn that wrote the bodies (undici's writer resumes once the socket drained).
  await nextTurn();
  await nextTurn();
  collectGarbage();

  const streamedChunk = watch.chunks.get('/v1/streamed');
  const jsonChunk = watch.chunks.get('/v1/json');
  assert.ok(streamedChunk !== undefined && jsonChunk !== undefined, 'undici reported writing both bodies');
  assert.equal(streamedChunk.deref(), undefined, 'the streamed call no longer holds its body');
  // The control: the same check sees the body a reply in progress still holds (the string path).
  assert.equal(jsonChunk.deref()?.length, Buffer.byteLength(body), 'the JSON call still holds its body');

  releaseHeld();
  await Promise.all([readRest(streamedReply.rest), readRest(jsonReply.rest)]);
});
