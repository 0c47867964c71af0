import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { expectError } from '../support/http-assertions.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { readSseUntil } from '../support/sse.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

const API_KEY = 'sk-concurrency-0123456789abcdef';
const TIMEOUT = { timeout: 10_000 };

/** Fires `count` requests at once; returns status and body text of each. */
async function burst(
  gateway: TestGateway,
  model: string,
  count: number,
  extra: Record<string, unknown> = {},
): Promise<Array<{ status: number; text: string; response: Response }>> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const response = await postChat(gateway.baseUrl, API_KEY, chatBody(model, extra));
      const text = await response.clone().text();
      return { status: response.status, text, response };
    }),
  );
}

describe('max_concurrency is never exceeded', () => {
  let a: SimulatedNode;
  let b: SimulatedNode;
  let streamer: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    a = await startSimulator({ firstByteMs: 300 });
    b = await startSimulator({ firstByteMs: 300 });
    streamer = await startSimulator({ tokensPerSecond: 30 });
    gateway = await startTestGateway(`
store: memory
nodes:
  - { id: a, provider: openai, base_url: "${a.baseUrl}", max_concurrency: 3 }
  - { id: b, provider: openai, base_url: "${b.baseUrl}", max_concurrency: 3 }
  - { id: streamer, provider: openai, base_url: "${streamer.baseUrl}", max_concurrency: 2 }
models:
  - { id: only-a, routes: [{ node: a }] }
  - { id: a-and-b, routes: [{ node: a }, { node: b }] }
  - { id: streams, routes: [{ node: streamer }] }
limits: { key: { rpm: 1000000 }, ip: { rpm: 1000000 } }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([a, b, streamer].map((node) => node?.close()));
  });

  test(
    '12 concurrent requests on a node of max_concurrency 3: 3 served, 9 get 503 router_unavailable, node never above 3',
    TIMEOUT,
    async () => {
      a.resetStats();
      const results = await burst(gateway, 'only-a', 12);
      const ok = results.filter((result) => result.status === 200);
      const refused = results.filter((result) => result.status !== 200);
      assert.equal(ok.length, 3, `statuses: ${results.map((result) => result.status).join(',')}`);
      assert.equal(a.stats().maxInFlight, 3, 'the node counted at most 3 concurrent requests');
      assert.equal(a.stats().requests, 3, 'no request over the limit reached the node');
      for (const result of refused) {
        assert.ok(result.response.headers.get('retry-after') !== null, 'Retry-After');
        await expectError(result.response, { status: 503, code: 'router_unavailable', type: 'service_unavailable' });
      }
    },
  );

  test(
    'with a second node of max_concurrency 3, the overflow goes there; both full → 503, neither above 3',
    TIMEOUT,
    async () => {
      a.resetStats();
      b.resetStats();
      const six = await burst(gateway, 'a-and-b', 6);
      assert.deepEqual(
        six.map((result) => result.status),
        [200, 200, 200, 200, 200, 200],
      );
      assert.equal(a.stats().requests, 3);
      assert.equal(b.stats().requests, 3);
      assert.ok(a.stats().maxInFlight <= 3 && b.stats().maxInFlight <= 3);

      a.resetStats();
      b.resetStats();
      const twelve = await burst(gateway, 'a-and-b', 12);
      const statuses = twelve.map((result) => result.status);
      assert.equal(statuses.filter((status) => status === 200).length, 6, `statuses: ${statuses.join(',')}`);
      assert.equal(statuses.filter((status) => status === 503).length, 6, `statuses: ${statuses.join(',')}`);
      assert.ok(a.stats().maxInFlight <= 3, `a maxInFlight ${a.stats().maxInFlight}`);
      assert.ok(b.stats().maxInFlight <= 3, `b maxInFlight ${b.stats().maxInFlight}`);
      assert.equal(a.stats().requests + b.stats().requests, 6, 'the refused requests never reached a node');
      for (const result of twelve.filter((entry) => entry.status === 503)) {
        await expectError(result.response, { status: 503, code: 'router_unavailable', type: 'service_unavailable' });
      }
    },
  );

  test(
    'a stream holds its slot until it ends: a full node refuses the next stream, then takes it once one finished',
    TIMEOUT,
    async () => {
      streamer.resetStats();
      const first = await postChat(gateway.baseUrl, API_KEY, chatBody('streams', { stream: true, max_tokens: 40 }));
      const second = await postChat(gateway.baseUrl, API_KEY, chatBody('streams', { stream: true, max_tokens: 40 }));
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      const firstRead = await readSseUntil(first, 2);
      const secondRead = await readSseUntil(second, 2);
      assert.equal(streamer.stats().inFlight, 2);

      const third = await postChat(gateway.baseUrl, API_KEY, chatBody('streams', { stream: true, max_tokens: 40 }));
      await expectError(third, { status: 503, code: 'router_unavailable', type: 'service_unavailable' });
      assert.equal(streamer.stats().requests, 2, 'the refused stream never reached the node');

      const done = await firstRead.rest;
      assert.equal(done.data[done.data.length - 1], '[DONE]');
      await waitFor(() => streamer.stats().inFlight < 2);
      // The gateway frees the slot when the relay ends; allow that moment to pass.
      await waitFor(() => (gateway.running.services.nodes.get('streamer')?.inFlight ?? 0) < 2);
      const fourth = await postChat(gateway.baseUrl, API_KEY, chatBody('streams', { stream: true, max_tokens: 5 }));
      assert.equal(fourth.status, 200);
      await fourth.text();
      await secondRead.rest;
      assert.ok(streamer.stats().maxInFlight <= 2, `streamer maxInFlight ${streamer.stats().maxInFlight}`);
    },
  );
});
