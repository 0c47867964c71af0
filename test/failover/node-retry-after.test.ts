import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError } from '../support/http-assertions.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';

// Issue 28, finding 12: when every node tried was busy (429) and said when to come back,
// the client's 503 passes on the soonest of their Retry-After hints, bounded by
// failover.max_retry_after_seconds; without a hint from every node it stays 1.

const TIMEOUT = { timeout: 30_000 };
const KEY = 'sk-retry-after-0123456789abcdef';
const ALWAYS = 1_000_000;

function busy(retryAfter?: string) {
  return {
    faults: {
      failFirst: {
        count: ALWAYS,
        status: 429,
        body: { error: { message: 'Rate limit reached', type: 'rate_limit_error' } },
        ...(retryAfter === undefined ? {} : { headers: { 'retry-after': retryAfter } }),
      },
    },
  };
}

describe("a node's Retry-After reaches the client when every node was busy", () => {
  const nodes: Record<string, SimulatedNode> = {};
  let gateway: TestGateway;

  before(async () => {
    const inTwentySeconds = new Date(Date.now() + 20_000).toUTCString();
    nodes.seven = await startSimulator(busy('7'));
    nodes.twelve = await startSimulator(busy('12'));
    nodes.dated = await startSimulator(busy(inTwentySeconds));
    nodes.hours = await startSimulator(busy('7200'));
    nodes.silent = await startSimulator(busy());
    const yamlNodes = Object.entries(nodes)
      .map(([id, node]) => `  - { id: ${id}, provider: openai, base_url: "${node.baseUrl}" }`)
      .join('\n');
    gateway = await startTestGateway(`
store: memory
health: { failure_threshold: 1000 }
failover: { max_retry_after_seconds: 90 }
nodes:
${yamlNodes}
models:
  - { id: both-hinted, routes: [{ node: twelve }, { node: seven, priority: 1 }] }
  - { id: dated, routes: [{ node: dated }] }
  - { id: too-long, routes: [{ node: hours }] }
  - { id: one-silent, routes: [{ node: seven }, { node: silent, priority: 1 }] }
keys:
  - { key: ${KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all(Object.values(nodes).map((node) => node.close()));
  });

  async function retryAfterOf(model: string): Promise<string | null> {
    const response = await postChat(gateway.baseUrl, KEY, chatBody(model));
    const retryAfter = response.headers.get('retry-after');
    await expectError(response, { status: 503, code: 'router_unavailable', type: 'service_unavailable' });
    return retryAfter;
  }

  test('the soonest hint among the nodes tried', TIMEOUT, async () => {
    assert.equal(await retryAfterOf('both-hinted'), '7');
  });

  test('an HTTP-date hint, in seconds from now', TIMEOUT, async () => {
    const seconds = Number(await retryAfterOf('dated'));
    assert.ok(seconds >= 17 && seconds <= 21, `about 20 s (got ${seconds})`);
  });

  test('a hint past failover.max_retry_after_seconds is cut to it', TIMEOUT, async () => {
    assert.equal(await retryAfterOf('too-long'), '90');
  });

  test('a node that gave no hint: 1 s, as before', TIMEOUT, async () => {
    assert.equal(await retryAfterOf('one-silent'), '1');
  });
});
