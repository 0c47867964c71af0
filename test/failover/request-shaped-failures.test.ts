import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { admin } from '../support/admin-client.js';
import { expectError } from '../support/http-assertions.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';

// Issue 28, finding 9: a failure the request's own shape explains (a long non-streamed
// reply, a reply over the gateway's cap, the attempt's deadline while the node produces)
// is the request's: it ejects no node, tries no other, and is billed. A node that is
// really slow or dead is still the node's failure.

const TIMEOUT = { timeout: 60_000 };
const KEY = 'sk-request-shaped-0123456789abcdef';
const ADMIN_KEY = 'request-shaped-admin-key-0123456789';
/** The simulated time a node takes to write a long non-streamed reply (headers come after it). */
const LONG_REPLY_MS = 1500;
const REPLY_CAP = 64 * 1024;

async function nodeStates(gateway: TestGateway): Promise<Map<string, string>> {
  const { body } = await admin(gateway.origin, 'GET', '/nodes', ADMIN_KEY);
  return new Map((body as { data: Array<{ id: string; state: string }> }).data.map((node) => [node.id, node.state]));
}

describe("failures the request's shape explains are not the node's", () => {
  let longA: SimulatedNode;
  let longB: SimulatedNode;
  let wideA: SimulatedNode;
  let wideB: SimulatedNode;
  let dead: SimulatedNode;
  let backup: SimulatedNode;
  let capped: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    longA = await startSimulator({ faults: { firstByteDelayMs: LONG_REPLY_MS } });
    longB = await startSimulator({ faults: { firstByteDelayMs: LONG_REPLY_MS } });
    wideA = await startSimulator();
    wideB = await startSimulator();
    dead = await startSimulator({ faults: { firstByteDelayMs: 10_000 } });
    backup = await startSimulator();
    capped = await startSimulator({ faults: { firstByteDelayMs: LONG_REPLY_MS } });
    gateway = await startTestGateway(`
store: memory
admin_key: ${ADMIN_KEY}
health: { failure_threshold: 1, base_ejection_ms: 60000 }
timeouts: { first_byte_ms: 300, min_tokens_per_second: 100 }
node_replies: { max_json_bytes: ${REPLY_CAP} }
nodes:
  - { id: long-a, provider: openai, base_url: "${longA.baseUrl}" }
  - { id: long-b, provider: openai, base_url: "${longB.baseUrl}" }
  - { id: wide-a, provider: openai, base_url: "${wideA.baseUrl}" }
  - { id: wide-b, provider: openai, base_url: "${wideB.baseUrl}" }
  - { id: dead, provider: openai, base_url: "${dead.baseUrl}" }
  - { id: backup, provider: openai, base_url: "${backup.baseUrl}" }
  - { id: capped, provider: openai, base_url: "${capped.baseUrl}", timeouts: { total_ms: 800 } }
models:
  - { id: long, pricing: { input: 1, output: 2 }, routes: [{ node: long-a }, { node: long-b }] }
  - { id: wide, pricing: { input: 1, output: 2 }, routes: [{ node: wide-a }, { node: wide-b }] }
  - { id: dead-first, routes: [{ node: dead }, { node: backup, priority: 1 }] }
  - { id: capped, pricing: { input: 1, output: 2 }, routes: [{ node: capped }, { node: backup, priority: 1 }] }
keys:
  - { key: ${KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([longA, longB, wideA, wideB, dead, backup, capped].map((node) => node?.close()));
  });

  test(
    'a long non-streamed reply past first_byte_ms is waited for: it is answered, and ejects no node',
    TIMEOUT,
    async () => {
      // 2,000 output tokens at min_tokens_per_second 100: the first byte may take 300 ms + 20 s.
      const responses = await Promise.all(
        Array.from({ length: 4 }, () =>
          postChat(gateway.baseUrl, KEY, chatBody('long', { max_tokens: 2000 }), { timeoutMs: 20_000 }),
        ),
      );
      for (const response of responses) {
        assert.equal(response.status, 200, await response.clone().text());
        assert.equal(response.headers.get('x-switchyard-attempts'), '1');
        await response.text();
      }
      const states = await nodeStates(gateway);
      assert.equal(states.get('long-a'), 'healthy');
      assert.equal(states.get('long-b'), 'healthy');
    },
  );

  test('a node silent past the first-byte deadline of a short reply is still ejected', TIMEOUT, async () => {
    // 5 output tokens: the first byte may take 300 ms + 50 ms, the node takes 10 s.
    const response = await postChat(gateway.baseUrl, KEY, chatBody('dead-first', { max_tokens: 5 }));
    assert.equal(response.status, 200, await response.clone().text());
    const line = await gateway.logLine(response.headers.get('x-request-id'));
    assert.deepEqual(
      line.attempts?.map((attempt) => attempt.node),
      ['dead', 'backup'],
    );
    assert.match(String(line.attempts?.[0]?.error), /first byte/);
    assert.equal((await nodeStates(gateway)).get('dead'), 'ejected');
  });

  test(
    "a node's total_ms passing while it writes a long reply is a 504 for the request: no failover, no ejection, billed",
    TIMEOUT,
    async () => {
      const response = await postChat(gateway.baseUrl, KEY, chatBody('capped', { max_tokens: 2000 }));
      await expectError(response, { status: 504, code: 'upstream_timeout', type: 'service_unavailable' });
      assert.equal(response.headers.get('x-switchyard-attempts'), '1');
      const line = await gateway.logLine(response.headers.get('x-request-id'));
      assert.deepEqual(
        line.attempts?.map((attempt) => attempt.node),
        ['capped'],
      );
      assert.equal(line.usage_estimated, true);
      assert.ok(
        Number(line.cost_usd) > 0,
        `billed for what the node was producing (cost_usd ${String(line.cost_usd)})`,
      );
      assert.equal((await nodeStates(gateway)).get('capped'), 'healthy');
    },
  );

  test(
    "a reply over max_json_bytes because of n and top_logprobs is the request's: 502 reply_too_large, billed, no node ejected",
    TIMEOUT,
    async () => {
      const body = chatBody('wide', { n: 4, logprobs: true, top_logprobs: 20, max_tokens: 200 });
      for (let round = 0; round < 3; round++) {
        const response = await postChat(gateway.baseUrl, KEY, body);
        const error = await expectError(response, {
          status: 502,
          code: 'reply_too_large',
          type: 'service_unavailable',
        });
        assert.match(error.error.message, new RegExp(String(REPLY_CAP)));
        assert.equal(response.headers.get('x-switchyard-attempts'), '1');
        const line = await gateway.logLine(response.headers.get('x-request-id'));
        assert.equal(line.usage_estimated, true);
        assert.ok(Number(line.cost_usd) > 0, `billed (cost_usd ${String(line.cost_usd)})`);
      }
      const states = await nodeStates(gateway);
      assert.equal(states.get('wide-a'), 'healthy');
      assert.equal(states.get('wide-b'), 'healthy');
      const victim = await postChat(gateway.baseUrl, KEY, chatBody('wide', { max_tokens: 16 }));
      assert.equal(victim.status, 200, await victim.clone().text());
      await victim.text();
    },
  );
});
