import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// A node may send 1xx informational responses (103 Early Hints) before its reply; undici
// hands them to the dispatch handler first. The gateway answers with the final reply.

const API_KEY = 'sk-informational-0123456789abcdef';
const TIMEOUT = { timeout: 20_000 };

function reply(stream: boolean): string {
  if (stream) {
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-hints', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    return chunk({ role: 'assistant', content: 'Points' }, null) + chunk({}, 'stop') + 'data: [DONE]\n\n';
  }
  return JSON.stringify({
    id: 'chatcmpl-hints',
    object: 'chat.completion',
    created: 1,
    model: 'up',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Points' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
  });
}

describe('a node that sends 103 Early Hints before its reply', () => {
  let node: Server;
  let gateway: TestGateway;

  before(async () => {
    node = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
        response.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
        response.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
        response.end(reply(stream));
      });
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    const port = (node.address() as AddressInfo).port;
    gateway = await startTestGateway(`
nodes:
  - { id: hints, provider: openai, base_url: "http://127.0.0.1:${port}/v1" }
models:
  - { id: m, routes: [{ node: hints }] }
keys:
  - { key: ${API_KEY}, name: hints }
`);
  });

  after(async () => {
    await gateway?.close();
    await new Promise<void>((resolve) => node?.close(() => resolve()));
  });

  const post = (stream: boolean) =>
    fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Name a switch.' }], stream }),
      signal: AbortSignal.timeout(10_000),
    });

  test('a JSON reply: the final 200 and its body reach the client', TIMEOUT, async () => {
    const response = await post(false);
    const body = (await response.json()) as { choices?: Array<{ message?: { content?: string } }> };
    assert.equal(response.status, 200, JSON.stringify(body));
    assert.equal(body.choices?.[0]?.message?.content, 'Points');
  });

  test('a stream: the final 200 and its events reach the client', TIMEOUT, async () => {
    const response = await post(true);
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.match(text, /"content":"Points"/);
    assert.match(text, /data: \[DONE\]/);
  });
});
