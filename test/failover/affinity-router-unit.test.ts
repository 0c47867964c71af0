import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { GatewayConfig, ModelConfig } from '../../src/config/gateway-config.js';
import { parseConfigText } from '../../src/config/load-config.js';
import { hashText } from '../../src/routing/affinity-hash.js';
import { NodeRegistry } from '../../src/routing/node-registry.js';
import { PoolRouter } from '../../src/routing/pool-router.js';
import { RouteTable } from '../../src/routing/route-table.js';

/** Nodes nobody connects to: the router never opens a connection. */
const NOWHERE = 'http://127.0.0.1:9/v1';
const FACTOR = 1.25;

const registries: NodeRegistry[] = [];
after(async () => {
  await Promise.all(registries.map((registry) => registry.close()));
});

interface Pool {
  readonly config: GatewayConfig;
  readonly registry: NodeRegistry;
  readonly router: PoolRouter;
  model(id?: string): ModelConfig;
}

/** The real registry, route table and router, from YAML. */
async function pool(yaml: string): Promise<Pool> {
  const config = parseConfigText(`store: memory\n${yaml}`, 'affinity-router-unit', {});
  const registry = new NodeRegistry(async (node) => ({ node, stop: async () => undefined }), config.health);
  registries.push(registry);
  await registry.reconcile(config.nodes);
  const router = new PoolRouter(new RouteTable(config.models, config.nodes), registry);
  return {
    config,
    registry,
    router,
    model: (id = 'm') => config.models.find((entry) => entry.id === id) as ModelConfig,
  };
}

function nodesYaml(ids: readonly string[], extra: (id: string) => string = () => ''): string {
  return `nodes:\n${ids.map((id) => `  - { id: ${id}, provider: openai, base_url: "${NOWHERE}"${extra(id)} }`).join('\n')}\n`;
}

const ids = (count: number) => Array.from({ length: count }, (_, index) => `node-${index}`);
const keyOf = (index: number) => hashText(`session-${index}`);

function preferredOf(subject: Pool, key: number, model = subject.model()): string | undefined {
  return subject.router.affinityCandidates(model, key, FACTOR).preferred;
}

describe('rendezvous hashing of affinity keys', () => {
  test('the order is stable: the same key gets the same order from two routers built apart', async () => {
    const yaml = `${nodesYaml(ids(5))}models: [{ id: m, routes: [${ids(5)
      .map((id) => `{ node: ${id} }`)
      .join(', ')}] }]\n`;
    const first = await pool(yaml);
    const second = await pool(yaml);
    for (let index = 0; index < 200; index++) {
      const a = first.router.affinityCandidates(first.model(), keyOf(index), FACTOR);
      const b = second.router.affinityCandidates(second.model(), keyOf(index), FACTOR);
      assert.deepEqual(
        a.candidates.map((candidate) => candidate.node.id),
        b.candidates.map((candidate) => candidate.node.id),
      );
      assert.equal(a.preferred, a.candidates[0]?.node.id, 'an idle tier never spills');
      assert.equal(a.preferred, b.preferred);
    }
  });

  test("every key's preferred node spreads evenly over the nodes", async () => {
    const subject = await pool(
      `${nodesYaml(ids(4))}models: [{ id: m, routes: [${ids(4)
        .map((id) => `{ node: ${id} }`)
        .join(', ')}] }]\n`,
    );
    const keys = 20_000;
    const counts = new Map<string, number>();
    for (let index = 0; index < keys; index++) {
      const node = preferredOf(subject, keyOf(index)) as string;
      counts.set(node, (counts.get(node) ?? 0) + 1);
    }
    assert.equal(counts.size, 4);
    // Binomial(20000, 1/4): sd ≈ 61; 5 000 ± 400 is beyond six standard deviations.
    for (const [node, count] of counts) assert.ok(Math.abs(count - keys / 4) < 400, `${node}: ${count}`);
  });

  test('weighted rendezvous: a node of weight 3 is preferred by three times the keys of a node of weight 1', async () => {
    const subject = await pool(
      `${nodesYaml(['light', 'heavy'], (id) => (id === 'heavy' ? ', weight: 3' : ''))}models: [{ id: m, routes: [{ node: light }, { node: heavy }] }]\n`,
    );
    let heavy = 0;
    const keys = 20_000;
    for (let index = 0; index < keys; index++) if (preferredOf(subject, keyOf(index)) === 'heavy') heavy++;
    // Expected 15 000; sd ≈ 61.
    assert.ok(Math.abs(heavy - 15_000) < 400, `heavy: ${heavy}`);
  });

  test('removing a node moves only the keys it was preferred by', async () => {
    const all = ids(5);
    const routes = (nodes: readonly string[]) => nodes.map((id) => `{ node: ${id} }`).join(', ');
    const full = await pool(`${nodesYaml(all)}models: [{ id: m, routes: [${routes(all)}] }]\n`);
    const fewer = await pool(`${nodesYaml(all)}models: [{ id: m, routes: [${routes(all.slice(0, 4))}] }]\n`);
    let moved = 0;
    for (let index = 0; index < 5_000; index++) {
      const before = preferredOf(full, keyOf(index));
      const after = preferredOf(fewer, keyOf(index));
      if (before === 'node-4') moved++;
      else assert.equal(after, before, `key ${index} stayed`);
    }
    assert.ok(moved > 0);
  });

  test('the preferred node comes from the best available tier; a drained one is skipped for the next in hash order', async () => {
    const subject = await pool(
      `${nodesYaml(['a', 'b', 'c', 'backup'])}models: [{ id: m, routes: [{ node: a }, { node: b }, { node: c }, { node: backup, priority: 1 }] }]\n`,
    );
    const key = keyOf(7);
    const order = subject.router.affinityCandidates(subject.model(), key, FACTOR).candidates.map((c) => c.node.id);
    assert.equal(order.at(-1), 'backup', 'a lower tier only for failover');
    const [first, second] = order as [string, string];
    subject.registry.get(first)?.setDrained(true);
    const drained = subject.router.affinityCandidates(subject.model(), key, FACTOR);
    assert.equal(drained.preferred, first, 'the preferred node is still the drained one');
    assert.equal(drained.candidates[0]?.node.id, second, 'the next in hash order takes it');
    for (const id of ['a', 'b', 'c']) subject.registry.get(id)?.setDrained(true);
    const tierDown = subject.router.affinityCandidates(subject.model(), key, FACTOR);
    assert.equal(tierDown.preferred, 'backup', 'with the first tier gone, the next tier is the best available');
  });

  test('bounded load: the preferred node above factor × the tier average is skipped', async () => {
    const subject = await pool(
      `${nodesYaml(['a', 'b', 'c', 'd'])}models: [{ id: m, routes: [{ node: a }, { node: b }, { node: c }, { node: d }] }]\n`,
    );
    const key = keyOf(3);
    const { preferred, candidates } = subject.router.affinityCandidates(subject.model(), key, FACTOR);
    const next = candidates[1]?.node.id;
    const state = subject.registry.get(preferred as string);
    assert.ok(state);
    // 4 requests in flight on the preferred node, none elsewhere: with this one, 5 > ⌈1.25 × 5 / 4⌉ = 2.
    state.inFlight = 4;
    assert.equal(subject.router.affinityCandidates(subject.model(), key, FACTOR).candidates[0]?.node.id, next);
    // One in flight: 2 ≤ ⌈1.25 × 2 / 4⌉ = 1 is false as well; with one on every node it fits.
    state.inFlight = 1;
    for (const id of ['a', 'b', 'c', 'd'])
      if (id !== preferred) (subject.registry.get(id) as typeof state).inFlight = 1;
    assert.equal(subject.router.affinityCandidates(subject.model(), key, FACTOR).candidates[0]?.node.id, preferred);
    for (const id of ['a', 'b', 'c', 'd']) (subject.registry.get(id) as typeof state).inFlight = 0;
  });

  test('bounded load counts the request being placed and rounds up: a node at the bound spills, one below it does not', async () => {
    const subject = await pool(
      `${nodesYaml(['a', 'b', 'c', 'd'])}models: [{ id: m, routes: [{ node: a }, { node: b }, { node: c }, { node: d }] }]\n`,
    );
    const key = keyOf(11);
    const { preferred, candidates } = subject.router.affinityCandidates(subject.model(), key, FACTOR);
    const next = candidates[1]?.node.id;
    const setLoads = (preferredLoad: number, otherLoad: number) => {
      for (const id of ['a', 'b', 'c', 'd'])
        (subject.registry.get(id) as NonNullable<ReturnType<NodeRegistry['get']>>).inFlight =
          id === preferred ? preferredLoad : otherLoad;
    };
    const firstChoice = () => subject.router.affinityCandidates(subject.model(), key, FACTOR).candidates[0]?.node.id;
    // 3 on the preferred node, 2 on each other: 9 in flight, 10 with this request, bound ⌈1.25 × 10 / 4⌉ = 4.
    // The node is below it (3 + 1 ≤ 4) and takes the request, though 3 is above 1.25 × the average 2.25 (2.81):
    // the tight form, factor × average without this request and without rounding up, would have spilled it.
    setLoads(3, 2);
    assert.equal(firstChoice(), preferred, 'below the bound: kept');
    // 4 on the preferred node: 10 in flight, bound ⌈1.25 × 11 / 4⌉ = 4, and 4 + 1 > 4: at the bound, it spills.
    setLoads(4, 2);
    assert.equal(firstChoice(), next, 'at the bound: the next node in hash order');
    // Small counts: 1 in flight on the preferred node and 1 elsewhere (bound ⌈1.25 × 3 / 4⌉ = 1): at the bound;
    // with 1 on every node (bound ⌈1.25 × 5 / 4⌉ = 2): below it.
    setLoads(1, 0);
    (subject.registry.get(next as string) as NonNullable<ReturnType<NodeRegistry['get']>>).inFlight = 1;
    assert.equal(
      firstChoice(),
      candidates[2]?.node.id,
      'at the bound with 2 in flight: spills past the busy next node',
    );
    setLoads(1, 1);
    assert.equal(firstChoice(), preferred, 'below the bound with 4 in flight: kept');
    setLoads(0, 0);
  });
});
