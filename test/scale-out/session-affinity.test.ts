import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { admin } from '../support/admin-client.js';
import { postChat } from '../support/post-chat.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Session and prefix affinity (PRODUCT decision 26) across two gateway instances that share
 * nothing but the configuration (each its own memory store, no Redis): every instance
 * prefers the same node for the same session by rendezvous hashing, without talking.
 */
const API_KEY = 'sk-affinity-0123456789abcdef';
const ADMIN_KEY = 'admin-affinity-0123456789abcdef';
const NODES = ['n1', 'n2', 'n3', 'n4'];
const TIMEOUT = { timeout: 30_000 };

interface Served {
  readonly node: string;
  readonly affinity: string;
  readonly requestId: string;
}

describe('session affinity across two instances sharing only the configuration', () => {
  const simulators: SimulatedNode[] = [];
  const gateways: TestGateway[] = [];

  before(async () => {
    for (let index = 0; index < NODES.length; index++) simulators.push(await startSimulator());
    const yaml = `
admin_key: ${ADMIN_KEY}
nodes:
${NODES.map((id, index) => `  - { id: ${id}, provider: openai, base_url: "${(simulators[index] as SimulatedNode).baseUrl}" }`).join('\n')}
models:
  - { id: sessions, routes: [${NODES.map((id) => `{ node: ${id} }`).join(', ')}] }
  - { id: drained-sessions, routes: [${NODES.map((id) => `{ node: ${id} }`).join(', ')}] }
  - { id: busy-sessions, routes: [${NODES.map((id) => `{ node: ${id} }`).join(', ')}] }
  - { id: prefixes, routing: { affinity: prefix }, routes: [${NODES.map((id) => `{ node: ${id} }`).join(', ')}] }
  - { id: spread, routing: { affinity: none }, routes: [${NODES.map((id) => `{ node: ${id} }`).join(', ')}] }
keys:
  - { key: ${API_KEY} }
`;
    gateways.push(await startTestGateway(yaml), await startTestGateway(yaml));
  });

  after(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await Promise.all(simulators.map((simulator) => simulator.close()));
  });

  /** One chat turn through an instance: the node its log line names and the affinity outcome. */
  async function chatTurn(
    gateway: TestGateway,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<Served> {
    const response = await postChat(gateway.baseUrl, API_KEY, { max_tokens: 4, ...body }, { headers });
    assert.equal(response.status, 200, await response.clone().text());
    await response.text();
    const requestId = response.headers.get('x-request-id') as string;
    const line = await gateway.logLine(requestId);
    return { node: String(line.node), affinity: String(line.affinity), requestId };
  }

  /** One Anthropic Messages turn through an instance. */
  async function messagesTurn(
    gateway: TestGateway,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<Served> {
    const response = await fetch(`${gateway.baseUrl}/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': API_KEY,
        'anthropic-version': '2023-06-01',
        ...headers,
      },
      body: JSON.stringify({ model: 'sessions', max_tokens: 4, ...body }),
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(response.status, 200, await response.clone().text());
    await response.text();
    const requestId = response.headers.get('x-request-id') as string;
    const line = await gateway.logLine(requestId);
    return { node: String(line.node), affinity: String(line.affinity), requestId };
  }

  /** A conversation that grows by one exchange per turn, as an agent's does. */
  function conversation(turn: number, opening = 'You are a careful coding agent.'): Array<Record<string, string>> {
    const messages = [
      { role: 'system', content: opening },
      { role: 'user', content: 'Read the repository and fix the failing test.' },
    ];
    for (let index = 1; index <= turn; index++) {
      messages.push(
        { role: 'assistant', content: `Step ${index} done.` },
        { role: 'user', content: `Go on (${index}).` },
      );
    }
    return messages;
  }

  const instance = (turn: number) => gateways[turn % 2] as TestGateway;

  test('twelve turns of one session, alternating instances, all reach the same node', TIMEOUT, async () => {
    const served: Served[] = [];
    for (let turn = 0; turn < 12; turn++) {
      served.push(
        await chatTurn(
          instance(turn),
          { model: 'sessions', messages: conversation(turn) },
          { 'x-session-id': 'session-alternating-1' },
        ),
      );
    }
    assert.equal(new Set(served.map((entry) => entry.node)).size, 1, JSON.stringify(served));
    assert.deepEqual(
      served.map((entry) => entry.affinity),
      served.map(() => 'hit'),
    );
    // The usage row and the metric say so too.
    const usage = await admin(instance(0).origin, 'GET', `/usage?request_id=${served[0]?.requestId}`, ADMIN_KEY);
    assert.equal(usage.status, 200, JSON.stringify(usage.body));
    assert.equal((usage.body as { data: Array<{ affinity: string }> }).data[0]?.affinity, 'hit');
    const metrics = await (
      await fetch(`${instance(0).origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    ).text();
    assert.match(metrics, /switchyard_affinity_total\{model="sessions",outcome="hit"\} 6\b/);
  });

  test('a drained preferred node moves the session once, to one new node, on both instances', TIMEOUT, async () => {
    const session = { 'x-session-id': 'session-drained-1' };
    const body = (turn: number) => ({ model: 'drained-sessions', messages: conversation(turn) });
    const before: Served[] = [];
    for (let turn = 0; turn < 4; turn++) before.push(await chatTurn(instance(turn), body(turn), session));
    const home = before[0]?.node as string;
    assert.ok(
      before.every((entry) => entry.node === home && entry.affinity === 'hit'),
      JSON.stringify(before),
    );

    // The operator drains the node on each instance (nothing is shared between them).
    for (const gateway of gateways) {
      const drained = await admin(gateway.origin, 'POST', `/nodes/${home}/drain`, ADMIN_KEY);
      assert.equal(drained.status, 200, JSON.stringify(drained.body));
    }
    try {
      const afterDrain: Served[] = [];
      for (let turn = 4; turn < 14; turn++) afterDrain.push(await chatTurn(instance(turn), body(turn), session));
      const nodes = new Set(afterDrain.map((entry) => entry.node));
      assert.equal(nodes.size, 1, `moved once, to one node: ${JSON.stringify(afterDrain)}`);
      assert.ok(!nodes.has(home), 'not to the drained node');
      // The preferred node was skipped: every turn reports a spill.
      assert.ok(
        afterDrain.every((entry) => entry.affinity === 'spill'),
        JSON.stringify(afterDrain),
      );
    } finally {
      for (const gateway of gateways) await admin(gateway.origin, 'POST', `/nodes/${home}/enable`, ADMIN_KEY);
    }
    // Enabled again, the session is back on its node.
    assert.equal((await chatTurn(instance(0), body(20), session)).node, home);
  });

  test(
    'Claude Code session header and Anthropic metadata.user_id each keep a session on one node',
    TIMEOUT,
    async () => {
      const byHeader: Served[] = [];
      const byUser: Served[] = [];
      for (let turn = 0; turn < 8; turn++) {
        const messages = conversation(turn).filter((message) => message.role !== 'system');
        byHeader.push(
          await messagesTurn(instance(turn), { messages }, { 'x-claude-code-session-id': 'claude-session-42' }),
        );
        byUser.push(
          await messagesTurn(instance(turn), {
            messages,
            metadata: { user_id: 'user_abc_account_def_session_0f1e2d3c' },
          }),
        );
      }
      for (const served of [byHeader, byUser]) {
        assert.equal(new Set(served.map((entry) => entry.node)).size, 1, JSON.stringify(served));
        assert.ok(
          served.every((entry) => entry.affinity === 'hit'),
          JSON.stringify(served),
        );
      }
      // The header wins over the body's field: the same header with other user ids lands alike.
      const other = await messagesTurn(
        instance(1),
        { messages: [{ role: 'user', content: 'hi' }], metadata: { user_id: 'someone-else' } },
        { 'x-claude-code-session-id': 'claude-session-42' },
      );
      assert.equal(other.node, byHeader[0]?.node);
    },
  );

  test('sessions spread over the nodes: different session keys prefer different nodes', TIMEOUT, async () => {
    const nodes = new Set<string>();
    for (let index = 0; index < 24; index++) {
      nodes.add(
        (
          await chatTurn(instance(index), {
            model: 'sessions',
            messages: conversation(0),
            prompt_cache_key: `pck-${index}`,
          })
        ).node,
      );
    }
    assert.equal(nodes.size, NODES.length, `24 sessions reached ${[...nodes].join(', ')}`);
  });

  test('with affinity none, one session spreads over the nodes and reports none', TIMEOUT, async () => {
    const served: Served[] = [];
    for (let turn = 0; turn < 24; turn++) {
      served.push(
        await chatTurn(instance(turn), { model: 'spread', messages: conversation(turn) }, { 'x-session-id': 's-none' }),
      );
    }
    assert.ok(new Set(served.map((entry) => entry.node)).size >= 2, JSON.stringify(served));
    assert.ok(served.every((entry) => entry.affinity === 'none'));
  });

  test('prefix affinity without a session key keeps one opening on one node, on both instances', TIMEOUT, async () => {
    const openings = ['Opening A: refactor the parser.', 'Opening B: write the docs.', 'Opening C: fix CI.'];
    const homes = new Set<string>();
    for (const opening of openings) {
      const served: Served[] = [];
      for (let turn = 0; turn < 6; turn++) {
        served.push(await chatTurn(instance(turn), { model: 'prefixes', messages: conversation(turn, opening) }));
      }
      assert.equal(new Set(served.map((entry) => entry.node)).size, 1, `${opening}: ${JSON.stringify(served)}`);
      assert.ok(served.every((entry) => entry.affinity === 'hit'));
      homes.add(served[0]?.node as string);
    }
    // Without prefix affinity a request with no key is routed by load: outcome none.
    const plain = await chatTurn(instance(0), { model: 'sessions', messages: conversation(0) });
    assert.equal(plain.affinity, 'none');
    // Twelve more openings reach more than one node (they are not all pinned to one).
    for (let index = 0; index < 12; index++) {
      homes.add(
        (await chatTurn(instance(index), { model: 'prefixes', messages: conversation(0, `Task ${index}`) })).node,
      );
    }
    assert.ok(homes.size >= 2, [...homes].join(', '));
  });

  test('sessions that all prefer a busy node spill to the next node and say so', TIMEOUT, async () => {
    // Sessions whose preferred node is n1, found by sending each once while the nodes are idle.
    const gateway = gateways[0] as TestGateway;
    const sessions: string[] = [];
    for (let index = 0; sessions.length < 8 && index < 200; index++) {
      const served = await chatTurn(
        gateway,
        { model: 'busy-sessions', messages: conversation(0) },
        { 'x-session-id': `busy-${index}` },
      );
      if (served.node === 'n1') sessions.push(`busy-${index}`);
    }
    assert.equal(sessions.length, 8, 'eight sessions prefer n1');
    for (const simulator of simulators) simulator.setFaults({ firstByteDelayMs: 400 });
    try {
      const served = await Promise.all(
        sessions.map((session) =>
          chatTurn(gateway, { model: 'busy-sessions', messages: conversation(1) }, { 'x-session-id': session }),
        ),
      );
      const spilled = served.filter((entry) => entry.affinity === 'spill');
      assert.ok(spilled.length > 0, `some spill: ${JSON.stringify(served)}`);
      assert.ok(
        spilled.every((entry) => entry.node !== 'n1'),
        'a spill went to another node',
      );
      assert.ok(
        served.some((entry) => entry.affinity === 'hit' && entry.node === 'n1'),
        'n1 still took its share',
      );
    } finally {
      for (const simulator of simulators) simulator.setFaults({});
    }
  });
});
