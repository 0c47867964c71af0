import assert from 'node:assert/strict';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { chatChunkEvent, chatUsageEvent } from '../support/sse.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// A held stream must not keep its prompt: a coding agent's turn sends tens of thousands of
// tokens and its reply may stream for minutes, so a gateway holding each stream's request
// while it relays holds every prompt in flight. Measured on the gateway's own heap and
// Buffers, in this process, after full collections (V8's gc, exposed here for the measurement).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const API_KEY = 'sk-e2e-held-stream-memory-0123456789';
const STREAMS = 24;
/** Characters of each request's prompt: a parsed prompt held per stream would be this many bytes. */
const PROMPT_CHARACTERS = 200_000;
/** What a held stream may keep on the heap: node:http's, undici's and the gateway's own state, not the prompt. */
const MAX_HEAP_PER_STREAM = 64 * 1024;
/** What a held stream may keep in Buffers (outside the heap): a read or two in flight, not the request's body. */
const MAX_BUFFERS_PER_STREAM = 32 * 1024;

const USAGE = { prompt_tokens: 50_000, completion_tokens: 2, total_tokens: 50_002 };

/** Each door's streamed request for one prompt, as a client sends it. */
const DOORS = {
  chat: {
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${API_KEY}` },
    body: (prompt: string) => ({ model: 'held', stream: true, messages: [{ role: 'user', content: prompt }] }),
  },
  messages: {
    path: '/v1/messages',
    headers: { 'x-api-key': API_KEY, 'anthropic-version': '2023-06-01' },
    body: (prompt: string) => ({
      model: 'held',
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: prompt }],
    }),
  },
  responses: {
    path: '/v1/responses',
    headers: { authorization: `Bearer ${API_KEY}` },
    body: (prompt: string) => ({ model: 'held', stream: true, store: false, input: prompt }),
  },
} as const;

describe('a held stream does not keep its prompt', () => {
  let node: Server;
  let gateway: TestGateway;
  /** The node's open streams: each has sent its first chunk and waits. */
  const waiting: ServerResponse[] = [];

  before(async () => {
    node = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(chatChunkEvent({ role: 'assistant', content: '' }) + chatChunkEvent({ content: 'Held' }));
        waiting.push(response);
      });
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    const { port } = node.address() as AddressInfo;
    gateway = await startTestGateway(`
http: { body_limit_bytes: 1048576 }
nodes:
  - { id: node-a, provider: openai, base_url: "http://127.0.0.1:${port}/v1", max_concurrency: ${STREAMS + 4} }
models:
  - { id: held, context_length: 1000000, routes: [{ node: node-a, model: node-model }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    for (const response of waiting.splice(0)) response.destroy();
    await gateway?.close();
    await new Promise<void>((resolve) => node?.close(() => resolve()));
  });

  /** Opens a stream through a door and resolves with its response once its first bytes arrived. */
  function openStream(door: keyof typeof DOORS, body: Buffer): Promise<IncomingMessage> {
    const { path, headers } = DOORS[door];
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        `${gateway.origin}${path}`,
        { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': body.length } },
        (response) => {
          if (response.statusCode !== 200) {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (piece: string) => (text += piece));
            response.on('end', () => reject(new Error(`${door}: ${response.statusCode} ${text}`)));
            return;
          }
          response.once('data', () => resolve(response));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  /** The heap in use and the array buffers' memory (Buffers live outside the heap), after full collections. */
  function liveMemory(): { heap: number; arrayBuffers: number } {
    collectGarbage();
    collectGarbage();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return { heap: heapUsed, arrayBuffers };
  }

  /** Ends the node's waiting streams and reads the clients' to their end. */
  async function endStreams(clients: readonly IncomingMessage[]): Promise<void> {
    const ended = clients.map(
      (client) =>
        new Promise<void>((resolve, reject) => {
          client.on('end', resolve).on('error', reject);
          client.resume();
        }),
    );
    for (const response of waiting.splice(0))
      response.end(chatChunkEvent({}, 'stop') + chatUsageEvent(USAGE) + 'data: [DONE]\n\n');
    await Promise.all(ended);
  }

  for (const door of Object.keys(DOORS) as Array<keyof typeof DOORS>) {
    test(`${door} door: ${STREAMS} held streams of ${PROMPT_CHARACTERS / 1000}k-character prompts`, async (t) => {
      // One Buffer per door, sent by every request: the client's copy is not on the heap.
      const body = Buffer.from(JSON.stringify(DOORS[door].body(`Read this. ${'a'.repeat(PROMPT_CHARACTERS)}`)));
      const open = () => Promise.all(Array.from({ length: STREAMS }, () => openStream(door, body)));
      // A first round loads the door's code and opens the connections both pools keep.
      await endStreams(await open());
      const before = liveMemory();
      const clients = await open();
      assert.equal(waiting.length, STREAMS, 'every stream is held at the node');
      const held = liveMemory();
      const heap = (held.heap - before.heap) / STREAMS;
      const buffers = (held.arrayBuffers - before.arrayBuffers) / STREAMS;
      await endStreams(clients);
      const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
      t.diagnostic(`${door}: per held stream ${kib(heap)} of heap, ${kib(buffers)} of array buffers`);
      const prompt = `a prompt is ${kib(PROMPT_CHARACTERS)}`;
      assert.ok(heap < MAX_HEAP_PER_STREAM, `${kib(heap)} of heap per held stream (${prompt})`);
      // The node request's body, a Buffer undici would keep for the whole request (dispatch-body.ts).
      assert.ok(buffers < MAX_BUFFERS_PER_STREAM, `${kib(buffers)} of array buffers per held stream (${prompt})`);
    });
  }
});
