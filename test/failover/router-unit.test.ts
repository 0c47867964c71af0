import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { GatewayConfig, ModelConfig } from '../../src/config/gateway-config.js';
import { parseConfigText } from '../../src/config/load-config.js';
import type { HealthSettings } from '../../src/config/node-health-settings.js';
import { NodeRegistry } from '../../src/routing/node-registry.js';
import { NodeState } from '../../src/routing/node-state.js';
import { PoolRouter } from '../../src/routing/pool-router.js';
import { RouteTable } from '../../src/routing/route-table.js';
import { mulberry32 } from '../../src/simulator/mulberry32.js';
import { NodeClient } from '../../src/upstream/node-client.js';

/** Nodes nobody connects to: the router never opens a connection. */
const NOWHERE = 'http://127.0.0.1:9/v1';

interface Pool {
  config: GatewayConfig;
  registry: NodeRegistry;
  routes: RouteTable;
  router: PoolRouter;
  model(id: string): ModelConfig;
  state(id: string): NodeState;
}

const registries: NodeRegistry[] = [];
after(async () => {
  await Promise.all(registries.map((registry) => registry.close()));
});

/** Builds the real registry, route table and router from YAML, with a seeded random. */
async function pool(yaml: string, seed = 42): Promise<Pool> {
  const config = parseConfigText(`store: memory\n${yaml}`, 'router-unit', {});
  const registry = new NodeRegistry(async (node) => ({ node, stop: async () => undefined }), config.health);
  registries.push(registry);
  await registry.reconcile(config.nodes);
  const routes = new RouteTable(config.models, config.nodes);
  const router = new PoolRouter(routes, registry, mulberry32(seed));
  return {
    config,
    registry,
    routes,
    router,
    model: (id) => {
      const model = config.models.find((entry) => entry.id === id);
      assert.ok(model, `model ${id}`);
      return model;
    },
    state: (id) => {
      const state = registry.get(id);
      assert.ok(state, `node ${id}`);
      return state;
    },
  };
}

function firstChoices(subject: Pool, modelId: string, picks: number): Map<string, number> {
  const counts = new Map<string, number>();
  const model = subject.model(modelId);
  for (let index = 0; index < picks; index++) {
    const first = subject.router.candidates(model)[0]?.node.id ?? '(none)';
    counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  return counts;
}

function order(subject: Pool, modelId: string): string[] {
  return subject.router.candidates(subject.model(modelId)).map((candidate) => candidate.node.id);
}

describe('PoolRouter: weights', () => {
  test('idle nodes with route weights 1:3 get about 25% / 75% of first choices (10,000 picks)', async () => {
    const subject = await pool(`
nodes:
  - { id: light, provider: openai, base_url: "${NOWHERE}" }
  - { id: heavy, provider: openai, base_url: "${NOWHERE}" }
models:
  - { id: m, routes: [{ node: light, weight: 1 }, { node: heavy, weight: 3 }] }
`);
    const counts = firstChoices(subject, 'm', 10_000);
    const light = (counts.get('light') ?? 0) / 10_000;
    const heavy = (counts.get('heavy') ?? 0) / 10_000;
    assert.ok(
      Math.abs(light - 0.25) < 0.03 && Math.abs(heavy - 0.75) < 0.03,
      `first-choice shares light=${light} heavy=${heavy}, expected about 0.25 / 0.75`,
    );
  });

  test('node weights 1:3 (no route weights) also give about 25% / 75% while idle', async () => {
    const subject = await pool(`
nodes:
  - { id: light, provider: openai, base_url: "${NOWHERE}", weight: 1 }
  - { id: heavy, provider: openai, base_url: "${NOWHERE}", weight: 3 }
models:
  - { id: m, routes: [{ node: light }, { node: heavy }] }
`);
    const counts = firstChoices(subject, 'm', 10_000);
    const light = (counts.get('light') ?? 0) / 10_000;
    assert.ok(Math.abs(light - 0.25) < 0.03, `light share ${light}, expected about 0.25`);
  });

  test('equal weights split evenly while idle', async () => {
    const subject = await pool(`
nodes:
  - { id: a, provider: openai, base_url: "${NOWHERE}" }
  - { id: b, provider: openai, base_url: "${NOWHERE}" }
  - { id: c, provider: openai, base_url: "${NOWHERE}" }
models:
  - { id: m, routes: [{ node: a }, { node: b }, { node: c }] }
`);
    const counts = firstChoices(subject, 'm', 9_000);
    for (const id of ['a', 'b', 'c']) {
      const share = (counts.get(id) ?? 0) / 9_000;
      assert.ok(Math.abs(share - 1 / 3) < 0.03, `${id}: ${share}`);
    }
  });

  test('load-aware: with equal weights, the busier node is first much less often', async () => {
    const subject = await pool(`
nodes:
  - { id: busy, provider: openai, base_url: "${NOWHERE}", max_concurrency: 10 }
  - { id: idle, provider: openai, base_url: "${NOWHERE}", max_concurrency: 10 }
models:
  - { id: m, routes: [{ node: busy }, { node: idle }] }
`);
    subject.state('busy').inFlight = 5;
    const counts = firstChoices(subject, 'm', 4_000);
    const idle = (counts.get('idle') ?? 0) / 4_000;
    assert.ok(idle > 0.7, `idle node first in ${idle} of picks`);
    assert.deepEqual(
      new Set(order(subject, 'm')),
      new Set(['busy', 'idle']),
      'the busy node is still a fallback candidate',
    );
  });
});

describe('PoolRouter: priority tiers and availability', () => {
  const yaml = `
nodes:
  - { id: p0a, provider: openai, base_url: "${NOWHERE}", max_concurrency: 2 }
  - { id: p0b, provider: openai, base_url: "${NOWHERE}", max_concurrency: 2 }
  - { id: p1, provider: openai, base_url: "${NOWHERE}", max_concurrency: 2 }
  - { id: p2, provider: openai, base_url: "${NOWHERE}", max_concurrency: 2 }
health: { failure_threshold: 1, base_ejection_ms: 60000 }
models:
  - { id: m, routes: [{ node: p2, priority: 2 }, { node: p1, priority: 1 }, { node: p0a, priority: 0 }, { node: p0b, priority: 0 }] }
`;

  test('every candidate of a lower priority comes before any of a higher one', async () => {
    const subject = await pool(yaml);
    for (let index = 0; index < 500; index++) {
      const ids = order(subject, 'm');
      assert.equal(ids.length, 4);
      assert.deepEqual(new Set(ids.slice(0, 2)), new Set(['p0a', 'p0b']));
      assert.deepEqual(ids.slice(2), ['p1', 'p2']);
    }
  });

  test('full, drained, ejected and retired nodes are left out; the next tier takes over', async () => {
    const subject = await pool(yaml);
    subject.state('p0a').inFlight = 2;
    assert.deepEqual(order(subject, 'm'), ['p0b', 'p1', 'p2'], 'a full node is left out');
    subject.state('p0b').drained = true;
    assert.deepEqual(order(subject, 'm'), ['p1', 'p2'], 'a drained node is left out');
    subject.state('p1').recordFailure();
    assert.equal(subject.state('p1').condition(), 'ejected');
    assert.deepEqual(order(subject, 'm'), ['p2'], 'an ejected node is left out');
    subject.registry.remove('p2');
    assert.deepEqual(order(subject, 'm'), [], 'a removed node is left out: nothing is available');

    subject.state('p0a').inFlight = 1;
    assert.deepEqual(order(subject, 'm'), ['p0a'], 'a node with a free slot is back');
    subject.state('p0b').drained = false;
    assert.deepEqual(new Set(order(subject, 'm')), new Set(['p0a', 'p0b']));
  });

  test('the route table: runtime routes join the configured ones and leave again', async () => {
    const subject = await pool(yaml);
    const extra = subject.config.nodes[0];
    assert.ok(extra);
    const node = { ...extra, id: 'runtime' };
    await subject.registry.put(node);
    subject.routes.addRuntimeNode({ node, routes: [{ model: 'm', upstreamModel: 'x', weight: 1, priority: 0 }] });
    assert.ok(order(subject, 'm').includes('runtime'));
    assert.equal(
      subject.router.candidates(subject.model('m')).find((candidate) => candidate.node.id === 'runtime')?.upstreamModel,
      'x',
    );
    subject.routes.removeRuntimeNode('runtime');
    subject.registry.remove('runtime');
    assert.ok(!order(subject, 'm').includes('runtime'));
  });
});

describe('NodeState: ejection and half-open probing', () => {
  const clients: NodeClient[] = [];
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  function nodeState(health: Partial<HealthSettings>, maxConcurrency = 4): NodeState {
    const config = parseConfigText(
      `store: memory\nnodes: [{ id: n, provider: openai, base_url: "${NOWHERE}", max_concurrency: ${maxConcurrency} }]\nmodels: [{ id: m, routes: [{ node: n }] }]\n`,
      'node-state-unit',
      {},
    );
    const node = config.nodes[0];
    assert.ok(node);
    const client = new NodeClient(node);
    clients.push(client);
    return new NodeState(node, client, { ...config.health, ...health });
  }

  test('the cooldown doubles with each ejection in a row and stops at max_ejection_ms', () => {
    const state = nodeState({ baseEjectionMs: 100, maxEjectionMs: 350, failureThreshold: 1 });
    const cooldowns: number[] = [];
    let now = 1_000_000;
    for (let index = 0; index < 5; index++) {
      state.recordFailure(now);
      cooldowns.push(state.cooldownLeftMs(now));
      assert.equal(state.condition(now), 'ejected');
      now += cooldowns[cooldowns.length - 1] as number;
      assert.equal(state.condition(now), 'probing', 'tried again once the cooldown passed');
      assert.equal(state.tryAcquire(now), 'probe', 'the probe request');
      state.release('probe');
    }
    assert.deepEqual(cooldowns, [100, 200, 350, 350, 350]);
    state.recordSuccess(10);
    assert.equal(state.condition(now), 'healthy');
    state.recordFailure(now);
    assert.equal(state.cooldownLeftMs(now), 100, 'a success resets the doubling');
  });

  test('failure_threshold consecutive failures eject; a success in between resets the count', () => {
    const state = nodeState({ failureThreshold: 3, baseEjectionMs: 1000 });
    const now = 5_000_000;
    state.recordFailure(now);
    state.recordFailure(now);
    state.recordSuccess(5);
    state.recordFailure(now);
    state.recordFailure(now);
    assert.equal(state.condition(now), 'healthy');
    state.recordFailure(now);
    assert.equal(state.condition(now), 'ejected');
    assert.ok(!state.isAvailable(now));
    assert.ok(!state.tryAcquire(now));
    assert.equal(state.errorRate(), 5 / 6);
  });

  test('half-open: exactly one probe at a time; its success makes the node healthy for everyone', () => {
    const state = nodeState({ failureThreshold: 1, baseEjectionMs: 100 }, 4);
    let now = 9_000_000;
    state.recordFailure(now);
    now += 100;
    assert.equal(state.condition(now), 'probing');
    assert.ok(state.isAvailable(now));
    assert.equal(state.tryAcquire(now), 'probe', 'one probe');
    assert.ok(!state.isAvailable(now), 'no second request while the probe is out');
    assert.ok(!state.tryAcquire(now), 'no second probe');
    assert.equal(state.inFlight, 1);
    state.recordSuccess(3);
    state.release('probe');
    assert.equal(state.condition(now), 'healthy');
    for (let index = 0; index < 4; index++) assert.ok(state.tryAcquire(now), `slot ${index + 1}`);
    assert.ok(!state.tryAcquire(now), 'max_concurrency 4 holds');
  });

  test('half-open: a probe abandoned without a verdict (client gone) lets the next request probe', () => {
    const state = nodeState({ failureThreshold: 1, baseEjectionMs: 100 }, 4);
    let now = 12_000_000;
    state.recordFailure(now);
    now += 100;
    assert.equal(state.tryAcquire(now), 'probe');
    state.release('probe');
    assert.equal(state.condition(now), 'probing');
    assert.equal(state.tryAcquire(now), 'probe', 'the next request is the new probe');
  });

  test('half-open: a failed probe ejects again at once (below the threshold), with a doubled cooldown', () => {
    const state = nodeState({ failureThreshold: 5, baseEjectionMs: 100, maxEjectionMs: 10_000 });
    let now = 20_000_000;
    state.eject(now);
    now += 100;
    assert.equal(state.tryAcquire(now), 'probe');
    state.recordFailure(now);
    state.release('probe');
    assert.equal(state.condition(now), 'ejected');
    assert.equal(state.cooldownLeftMs(now), 200);
  });

  test('failures of requests already in flight when the node was ejected do not eject it again (no doubled cooldown)', () => {
    // Four concurrent requests were sent before the node broke; they all fail at once.
    const state = nodeState({ failureThreshold: 2, baseEjectionMs: 100, maxEjectionMs: 10_000 }, 8);
    const now = 30_000_000;
    for (let index = 0; index < 4; index++) assert.ok(state.tryAcquire(now));
    state.recordFailure(now);
    state.recordFailure(now);
    assert.equal(state.condition(now), 'ejected');
    assert.equal(state.cooldownLeftMs(now), 100);
    state.recordFailure(now);
    state.recordFailure(now);
    for (let index = 0; index < 4; index++) state.release('slot');
    assert.equal(
      state.cooldownLeftMs(now),
      100,
      'one failure episode is one ejection: the cooldown only grows when the node fails again after being tried again',
    );
  });

  test('a drained node is unavailable whatever its health; a full node refuses a slot', () => {
    const state = nodeState({}, 1);
    state.drained = true;
    assert.equal(state.condition(), 'drained');
    assert.ok(!state.tryAcquire());
    state.drained = false;
    assert.ok(state.tryAcquire());
    assert.ok(!state.tryAcquire(), 'max_concurrency 1');
    state.release('slot');
    assert.ok(state.tryAcquire());
  });
});
