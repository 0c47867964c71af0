import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { expectError } from '../support/http-assertions.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { readSseUntil } from '../support/sse.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

const API_KEY = 'sk-edge-cases-0123456789abcdef';
const TIMEOUT = { timeout: 10_000 };

describe('half-open probe request that the client abandons', () => {
  let flaky: SimulatedNode;
  let steady: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    flaky = await startSimulator();
    steady = await startSimulator();
    gateway = await startTestGateway(`
store: memory
health: { failure_threshold: 1, base_ejection_ms: 200 }
nodes:
  - { id: flaky, provider: openai, base_url: "${flaky.baseUrl}" }
  - { id: steady, provider: openai, base_url: "${steady.baseUrl}" }
models:
  - { id: m, routes: [{ node: flaky, priority: 0 }, { node: steady, priority: 1 }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([flaky, steady].map((node) => node?.close()));
  });

  test('the node is probed again by a later request (it must not stay half-open forever)', TIMEOUT, async () => {
    const state = gateway.running.services.nodes.get('flaky');
    assert.ok(state);
    // 1. One failure ejects it (threshold 1) for 200 ms.
    flaky.setFaults({ failFirst: { count: 1, status: 500 } });
    const failed = await postChat(gateway.baseUrl, API_KEY, chatBody('m'));
    assert.equal(failed.status, 200);
    await failed.text();
    assert.equal(state.condition(), 'ejected');

    // 2. After the cooldown the probe request goes to it; the node is slow and the client leaves.
    await sleep(250);
    assert.equal(state.condition(), 'probing');
    flaky.setFaults({ firstByteDelayMs: 1000 });
    await assert.rejects(postChat(gateway.baseUrl, API_KEY, chatBody('m'), { timeoutMs: 150 }));
    await waitFor(() => flaky.stats().inFlight === 0 && state.inFlight === 0, 2000);
    assert.equal(flaky.stats().requests, 2, 'the abandoned request was the probe');

    // 3. The node is fine now. A client leaving says nothing about the node, so a later
    //    request must be allowed to probe it again.
    flaky.setFaults({});
    const later = await postChat(gateway.baseUrl, API_KEY, chatBody('m'));
    assert.equal(later.status, 200);
    await later.text();
    const line = await gateway.logLine(later.headers.get('x-request-id'));
    assert.deepEqual(
      line.attempts?.map((attempt) => attempt.node),
      ['flaky'],
      `state ${state.condition()}, available ${String(state.isAvailable())}: the node stays 'probing' with its one probe slot taken forever`,
    );
  });
});

describe('reload that changes a node while it has requests in flight', () => {
  let node: SimulatedNode;
  let gateway: TestGateway;

  const yaml = (weight: number): string => `
store: memory
nodes:
  - { id: cap, provider: openai, base_url: "${node.baseUrl}", max_concurrency: 2, weight: ${weight} }
models:
  - { id: m, routes: [{ node: cap }] }
keys:
  - { key: ${API_KEY} }
`;

  before(async () => {
    node = await startSimulator({ tokensPerSecond: 25 });
    gateway = await startTestGateway(yaml(1));
  });

  after(async () => {
    await gateway?.close();
    await node?.close();
  });

  test('max_concurrency still counts the requests in flight on the replaced node state', TIMEOUT, async () => {
    const streams = await Promise.all(
      [1, 2].map(() => postChat(gateway.baseUrl, API_KEY, chatBody('m', { stream: true, max_tokens: 25 }))),
    );
    const reads = await Promise.all(streams.map((stream) => readSseUntil(stream, 2)));
    assert.equal(node.stats().inFlight, 2);

    // Only the weight changes: the node is the same server with the same capacity.
    await gateway.running.reload(gateway.parse(yaml(2)));

    const extra = await postChat(gateway.baseUrl, API_KEY, chatBody('m', { stream: true, max_tokens: 3 }));
    const maxInFlight = node.stats().maxInFlight;
    const status = extra.status;
    if (status === 200) await extra.text();
    await Promise.all(reads.map((read) => read.rest));
    assert.ok(
      maxInFlight <= 2,
      `the node saw ${maxInFlight} concurrent requests with max_concurrency 2 (extra request status ${status})`,
    );
    await expectError(extra, { status: 503, code: 'router_unavailable', type: 'service_unavailable' });
  });
});
