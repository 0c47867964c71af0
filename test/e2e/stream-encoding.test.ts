import assert from 'node:assert/strict';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { postChat } from '../support/post-chat.js';
import { chatChunkEvent, chatUsageEvent } from '../support/sse.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

const API_KEY = 'sk-e2e-stream-encoding-0123456789abcdef';

const USAGE = { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 };

/** The node's stream: a first chunk, one chunk per piece of content, the finish and the usage. */
function streamOf(pieces: string[]): string {
  return [
    chatChunkEvent({ role: 'assistant', content: '' }),
    ...pieces.map((content) => chatChunkEvent({ content })),
    chatChunkEvent({}, 'stop'),
    chatUsageEvent(USAGE),
    'data: [DONE]\n\n',
  ].join('');
}

/**
 * The chat door writes a relayed stream whose bytes are all ASCII as latin1 (the same bytes,
 * no UTF-8 counting): a stream with characters beyond ASCII, in the node's text or in the
 * client's model id, must still arrive byte for byte as UTF-8.
 */
describe('chat stream text arrives as UTF-8, ASCII or not', () => {
  let node: Server;
  let gateway: TestGateway;
  let body = '';

  before(async () => {
    node = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const bytes = Buffer.from(body);
        // Two network chunks, the cut inside the body, so a character may be split across them.
        response.write(bytes.subarray(0, 301));
        setTimeout(() => response.end(bytes.subarray(301)), 5);
      });
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    const { port } = node.address() as AddressInfo;
    gateway = await startTestGateway(`
store: memory
nodes:
  - { id: plain, provider: openai, base_url: "http://127.0.0.1:${port}/v1" }
models:
  - { id: ascii-model, routes: [{ node: plain }] }
  - { id: modèle-été, routes: [{ node: plain }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await new Promise<void>((resolve) => node.close(() => resolve()));
  });

  const cases = [
    { name: 'ASCII text, ASCII model', model: 'ascii-model', pieces: ['Plain', ' ASCII', ' answer.'] },
    { name: 'text beyond ASCII', model: 'ascii-model', pieces: ['Café', ' 日本', ' 🚂 done.'] },
    { name: 'ASCII text, a model id beyond ASCII', model: 'modèle-été', pieces: ['Plain', ' answer.'] },
  ];
  // The door writes the last batch and `data: [DONE]` as two writes of one socket write (not
  // joined): both must leave before the response's end, or the next reply on the connection
  // begins with the stream's tail (it did on Node 24 with an explicit cork around them).
  test('streams one after another on one kept-alive connection each end whole', { timeout: 6000 }, async () => {
    body = streamOf(['One', ' connection,', ' three', ' streams.']);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const { hostname, port, pathname } = new URL(`${gateway.baseUrl}/chat/completions`);
    const payload = JSON.stringify({
      model: 'ascii-model',
      messages: [{ role: 'user', content: 'Hi.' }],
      stream: true,
    });
    try {
      for (let index = 0; index < 3; index++) {
        const { text, reused } = await new Promise<{ text: string; reused: boolean }>((resolve, reject) => {
          const outgoing = httpRequest({ hostname, port, path: pathname, method: 'POST', agent }, (response) => {
            let received = '';
            response.setEncoding('utf8');
            response.on('data', (piece: string) => (received += piece));
            response.on('end', () => resolve({ text: received, reused: outgoing.reusedSocket }));
            response.on('error', reject);
          });
          outgoing.setHeader('authorization', `Bearer ${API_KEY}`);
          outgoing.setHeader('content-type', 'application/json');
          outgoing.on('error', reject);
          outgoing.end(payload);
        });
        assert.equal(reused, index > 0, `stream ${index + 1} on the same connection`);
        assert.ok(text.startsWith('data: {'), `stream ${index + 1} starts with an event`);
        assert.ok(text.endsWith('data: [DONE]\n\n'), `stream ${index + 1} ends with [DONE]`);
        assert.equal(text.split('data: [DONE]').length, 2, `stream ${index + 1} holds one [DONE]`);
      }
    } finally {
      agent.destroy();
    }
  });

  for (const { name, model, pieces } of cases) {
    test(name, { timeout: 6000 }, async () => {
      body = streamOf(pieces);
      for (const includeUsage of [true, false]) {
        const response = await postChat(gateway.baseUrl, API_KEY, {
          model,
          messages: [{ role: 'user', content: 'Say something.' }],
          stream: true,
          stream_options: { include_usage: includeUsage },
        });
        assert.equal(response.status, 200);
        const text = new TextDecoder('utf-8', { fatal: true }).decode(await response.arrayBuffer());
        const chunks = text
          .split('\n\n')
          .filter((event) => event.startsWith('data: {'))
          .map((event) => JSON.parse(event.slice('data: '.length)) as Record<string, unknown>);
        const content = chunks
          .flatMap((chunk) => (chunk.choices as { delta?: { content?: string } }[]).map((c) => c.delta?.content ?? ''))
          .join('');
        assert.equal(content, pieces.join(''));
        assert.ok(
          chunks.every((chunk) => chunk.model === model),
          `every chunk names ${model}`,
        );
        assert.ok(text.endsWith('data: [DONE]\n\n'));
      }
    });
  }
});
