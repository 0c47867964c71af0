import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { chatBody, postChat } from '../support/post-chat.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';

// Issue 28, finding 12: a node's 4xx body that quotes the node's own key reaches the client
// with the key replaced, through every door that passes a node's error on.

const TIMEOUT = { timeout: 30_000 };
const KEY = 'sk-redaction-client-0123456789abcdef';
const NODE_KEY = 'sk-node-secret-Zq81fJ0x9Lm2';
const ALWAYS = 1_000_000;

function quotingFault(protocol: 'openai' | 'anthropic') {
  const message = `Incorrect API key provided: ${NODE_KEY}. You can find your API key at the console.`;
  const body =
    protocol === 'anthropic'
      ? { type: 'error', error: { type: 'invalid_request_error', message } }
      : { error: { message, type: 'invalid_request_error', code: 'invalid_api_key', param: null } };
  return { failFirst: { count: ALWAYS, status: 400, body } };
}

/** A native Responses node whose stream fails, quoting its key: response.created, then response.failed. */
function startFailingResponsesNode(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const base = { id: 'resp_fail', object: 'response', created_at: 1, model: 'up', output: [], usage: null };
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (type: string, data: Record<string, unknown>) =>
        `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: 0, ...data })}\n\n`;
      response.write(event('response.created', { response: { ...base, status: 'in_progress', error: null } }));
      response.end(
        event('response.failed', {
          response: {
            ...base,
            status: 'failed',
            error: { code: 'server_error', message: `upstream refused key ${NODE_KEY}` },
          },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe("a node's error body never carries the node's key to a client", () => {
  let openaiNode: SimulatedNode;
  let anthropicNode: SimulatedNode;
  let responsesNode: Server;
  let gateway: TestGateway;

  before(async () => {
    responsesNode = await startFailingResponsesNode();
    openaiNode = await startSimulator({ faults: quotingFault('openai') });
    anthropicNode = await startSimulator({ protocol: 'anthropic', faults: quotingFault('anthropic') });
    gateway = await startTestGateway(`
store: memory
nodes:
  - { id: openai, provider: openai, base_url: "${openaiNode.baseUrl}", api_key: ${NODE_KEY} }
  - { id: anthropic, provider: anthropic, base_url: "${anthropicNode.baseUrl}", api_key: ${NODE_KEY} }
  - { id: native-responses, provider: openai, apis: [chat, responses], base_url: "http://127.0.0.1:${(responsesNode.address() as AddressInfo).port}/v1", api_key: ${NODE_KEY} }
models:
  - { id: via-responses, routes: [{ node: native-responses }] }
  - { id: via-openai, routes: [{ node: openai }] }
  - { id: via-anthropic, routes: [{ node: anthropic }] }
keys:
  - { key: ${KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await openaiNode?.close();
    await anthropicNode?.close();
    responsesNode?.close();
  });

  test("a native Responses stream's response.failed reaches the client without the node's key", TIMEOUT, async () => {
    const response = await fetch(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'via-responses', input: 'hi', stream: true, store: false }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.match(text, /response\.failed/);
    assert.ok(!text.includes(NODE_KEY), `no node key in ${text}`);
    assert.match(text, /upstream refused key \[redacted\]/);
  });

  for (const model of ['via-openai', 'via-anthropic']) {
    test(`Chat Completions door, ${model}: the node's 400 passes through with its key redacted`, TIMEOUT, async () => {
      const response = await postChat(gateway.baseUrl, KEY, chatBody(model));
      const text = await response.text();
      assert.equal(response.status, 400, text);
      assert.ok(!text.includes(NODE_KEY), `no node key in ${text}`);
      assert.match(text, /Incorrect API key provided: \[redacted\]/);
    });

    test(`Messages door, ${model}: the node's 400 passes through with its key redacted`, TIMEOUT, async () => {
      const response = await fetch(`${gateway.baseUrl}/messages`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const text = await response.text();
      assert.equal(response.status, 400, text);
      assert.ok(!text.includes(NODE_KEY), `no node key in ${text}`);
      assert.match(text, /\[redacted\]/);
    });
  }

  test('the Responses door: the node key is not in the error either', TIMEOUT, async () => {
    const response = await fetch(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'via-openai', input: 'hi', store: false }),
    });
    const text = await response.text();
    assert.equal(response.status, 400, text);
    assert.ok(!text.includes(NODE_KEY), `no node key in ${text}`);
  });
});
