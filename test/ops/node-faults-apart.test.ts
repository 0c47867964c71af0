import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { admin } from '../support/admin-client.js';
import { expectError } from '../support/http-assertions.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { chatChunkEvent, readSse } from '../support/sse.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { execute } from '../../src/pipeline/execute.js';
import type { RequestContext } from '../../src/context/request-context.js';
import type { ChatRequest } from '../../src/protocol/openai/chat-request-schema.js';
import { Cancellation } from '../../src/upstream/cancellation.js';

// PRODUCT.md decision 22: a fault of the gateway's own code is a 500 that never counts
// against a node, and what a node sends back is bounded (reply size, stream event size).

const TIMEOUT = { timeout: 60_000 };
const KEY = 'sk-node-faults-0123456789abcdef';
const ADMIN_KEY = 'node-faults-admin-key-0123456789';
const REPLY_CAP = 1024 * 1024;
const EVENT_CAP = 64 * 1024;

/** A node that misbehaves by size, per path: `/huge-json/v1`, `/huge-json-declared/v1`, `/huge-event-first/v1`, `/huge-event-later/v1`. */
function startOversizeNode(): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      const path = request.url ?? '';
      const reply = JSON.stringify({
        id: 'chatcmpl-big',
        object: 'chat.completion',
        created: 1,
        model: 'up',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'x'.repeat(5 * REPLY_CAP) }, finish_reason: 'stop' },
        ],
      });
      if (path.startsWith('/huge-json-declared/')) {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
        response.end(reply);
      } else if (path.startsWith('/huge-json/')) {
        // Chunked, no declared length: the cap must hold while the body arrives.
        response.writeHead(200, { 'content-type': 'application/json' });
        for (let start = 0; start < reply.length; start += 64 * 1024)
          response.write(reply.slice(start, start + 64 * 1024));
        response.end();
      } else {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const huge = chatChunkEvent({ content: 'y'.repeat(4 * EVENT_CAP) });
        if (path.startsWith('/huge-event-later/'))
          response.write(chatChunkEvent({ role: 'assistant', content: 'Hello' }));
        // The oversized event in small pieces, as a node streams it.
        for (let start = 0; start < huge.length; start += 4096) response.write(huge.slice(start, start + 4096));
        response.end(chatChunkEvent({}, 'stop') + 'data: [DONE]\n\n');
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

describe('gateway faults are not node faults; node replies are bounded', () => {
  let simulator: SimulatedNode;
  let anthropicSimulator: SimulatedNode;
  let geminiSimulator: SimulatedNode;
  let oversize: { server: Server; origin: string };
  let gateway: TestGateway;

  before(async () => {
    simulator = await startSimulator();
    anthropicSimulator = await startSimulator({ protocol: 'anthropic' });
    geminiSimulator = await startSimulator({ protocol: 'gemini' });
    oversize = await startOversizeNode();
    const node = (id: string, path: string) =>
      `  - { id: ${id}, provider: openai, base_url: "${oversize.origin}/${path}/v1", replies: { max_json_bytes: ${REPLY_CAP}, max_event_bytes: ${EVENT_CAP} } }`;
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
health: { failure_threshold: 2, base_ejection_ms: 60000 }
failover: { max_attempts: 2 }
nodes:
  - { id: sim, provider: openai, base_url: "${simulator.baseUrl}" }
  - { id: sim-anthropic, provider: anthropic, base_url: "${anthropicSimulator.baseUrl}" }
  - { id: sim-gemini, provider: gemini, base_url: "${geminiSimulator.baseUrl}" }
${node('huge-json', 'huge-json')}
${node('huge-json-declared', 'huge-json-declared')}
${node('huge-event-first', 'huge-event-first')}
${node('huge-event-later', 'huge-event-later')}
models:
  - { id: plain, routes: [{ node: sim }] }
  - { id: plain-anthropic, routes: [{ node: sim-anthropic }] }
  - { id: plain-gemini, routes: [{ node: sim-gemini }] }
  - { id: big-json, routes: [{ node: huge-json }, { node: sim, priority: 1 }] }
  - { id: big-json-declared, routes: [{ node: huge-json-declared }] }
  - { id: big-first-event, routes: [{ node: huge-event-first }, { node: sim, priority: 1 }] }
  - { id: big-later-event, routes: [{ node: huge-event-later }] }
keys:
  - { key: ${KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await simulator?.close();
    await anthropicSimulator?.close();
    await geminiSimulator?.close();
    await new Promise((resolve) => oversize?.server.close(resolve));
  });

  test(
    "a throw of the gateway's own code while the node request is built is a 500 that never counts against the node",
    TIMEOUT,
    async () => {
      // A value the node request cannot be serialized with (no JSON body has one) makes the
      // gateway's own code throw inside the real execute stage, with real nodes and health.
      const { services } = gateway.running;
      const { snapshot } = services;
      const model = snapshot.models.get('plain');
      assert.ok(model);
      for (const stream of [false, true, false]) {
        const context: RequestContext = {
          requestId: `req_fault${String(stream)}`,
          correlationId: 'corr',
          language: 'en',
          startedAt: performance.now(),
          snapshot,
          cancellation: new Cancellation(),
          abortCause: undefined,
          record: { frontDoor: 'chat', stream, attempts: [], clientAborted: false },
        };
        const request = {
          model: 'plain',
          messages: [{ role: 'user', content: 'hi' }],
          x_unserializable: 1n,
        } as unknown as ChatRequest;
        const executed = await execute(context, {
          frontDoor: 'chat',
          request,
          native: undefined,
          clientModel: 'plain',
          model,
          effort: undefined,
          stream,
          outputCap: { tokens: 64, contextBound: false },
          candidates: snapshot.router.candidates(model),
          maxAttempts: 2,
          retryOnStatus: snapshot.config.failover.retryOnStatus,
          maxRetryAfterSeconds: snapshot.config.failover.maxRetryAfterSeconds,
          totalTimeoutMs: 10_000,
        });
        assert.equal(executed.ok, false);
        const failure = executed.ok ? undefined : (executed.failure as { code?: string; status?: number });
        assert.equal(failure?.code, 'internal_error');
        assert.equal(failure?.status, 500);
        assert.equal(executed.attempts.length, 1, "no other node is tried for the gateway's own fault");
      }
      const { body } = await admin(gateway.origin, 'GET', '/nodes', ADMIN_KEY);
      const sim = (body as { data: Array<{ id: string; state: string }> }).data.find((entry) => entry.id === 'sim');
      assert.equal(sim?.state, 'healthy', 'three gateway faults did not eject the node (failure_threshold 2)');
      const fine = await postChat(gateway.baseUrl, KEY, chatBody('plain'));
      assert.equal(fine.status, 200, await fine.text());
    },
  );

  test(
    'tool-call arguments nested past max_json_depth are a 400 naming them, for every node protocol',
    TIMEOUT,
    async () => {
      const args = JSON.stringify(`{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
      for (const model of ['plain', 'plain-anthropic', 'plain-gemini']) {
        const response = await postChat(
          gateway.baseUrl,
          KEY,
          `{"model":"${model}","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":${args}}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`,
        );
        await expectError(response, {
          status: 400,
          code: 'validation_failed',
          type: 'invalid_request_error',
          param: 'messages[1].tool_calls[0].function.arguments',
        });
      }
    },
  );

  test(
    "a JSON reply over max_json_bytes is the request's (issue 28, finding 9): 502 reply_too_large, not failed over",
    TIMEOUT,
    async () => {
      const response = await postChat(gateway.baseUrl, KEY, chatBody('big-json'));
      const body = await expectError(response, { status: 502, code: 'reply_too_large', type: 'service_unavailable' });
      assert.match(body.error.message, /1048576 bytes/);
      const line = await gateway.logLine(response.headers.get('x-request-id'));
      assert.deepEqual(
        line.attempts?.map((attempt) => attempt.node),
        ['huge-json'],
      );
    },
  );

  test(
    'a declared length over max_json_bytes is refused unread: 502 reply_too_large, never counted against the node',
    TIMEOUT,
    async () => {
      for (let round = 0; round < 2; round++) {
        const response = await postChat(gateway.baseUrl, KEY, chatBody('big-json-declared'));
        const body = await expectError(response, { status: 502, code: 'reply_too_large', type: 'service_unavailable' });
        assert.ok(body.error.message.length < 500);
      }
      // Not counted against the node: two of them would have ejected it (failure_threshold 2).
      const { body: nodes } = await admin(gateway.origin, 'GET', '/nodes', ADMIN_KEY);
      const node = (nodes as { data: Array<{ id: string; state: string }> }).data.find(
        (entry) => entry.id === 'huge-json-declared',
      );
      assert.equal(node?.state, 'healthy');
    },
  );

  test('a first stream event over max_event_bytes fails over before the first byte', TIMEOUT, async () => {
    const response = await postChat(gateway.baseUrl, KEY, chatBody('big-first-event', { stream: true }));
    assert.equal(response.status, 200);
    const { data } = await readSse(response);
    assert.equal(data.at(-1), '[DONE]');
    assert.ok(!data.some((event) => event.includes('"error"')), 'no error event: the simulator answered');
    const line = await gateway.logLine(response.headers.get('x-request-id'));
    assert.equal(line.attempts?.[0]?.node, 'huge-event-first');
    assert.match(String(line.attempts?.[0]?.error), /more than 65536 characters/);
  });

  test(
    'a stream event over max_event_bytes after the first byte ends the stream with usage and one error event',
    TIMEOUT,
    async () => {
      const response = await postChat(gateway.baseUrl, KEY, chatBody('big-later-event', { stream: true }));
      assert.equal(response.status, 200);
      const { data } = await readSse(response);
      const events = data
        .filter((event) => event !== '[DONE]')
        .map((event) => JSON.parse(event) as Record<string, unknown>);
      assert.equal(
        (events[0] as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content,
        'Hello',
      );
      const last = events.at(-1) as { error?: { code: string } };
      assert.equal(last.error?.code, 'bad_gateway');
      assert.ok(
        events.slice(0, -1).some((event) => event.usage !== undefined && event.usage !== null),
        'the usage so far comes before the error event',
      );
      assert.ok(
        !data.some((event) => event.includes('y'.repeat(1000))),
        'nothing of the oversized event reached the client',
      );
    },
  );
});
