import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { pino } from 'pino';
import { NodeStateSync } from '../../src/routing/cluster/node-state-sync.js';
import { parseConfigText } from '../../src/config/load-config.js';
import { NodeRegistry } from '../../src/routing/node-registry.js';
import type { HealthSettings } from '../../src/config/node-health-settings.js';
import type { NodeStateLinks } from '../../src/routing/node-state-links.js';
import { NodeState } from '../../src/routing/node-state.js';
import type { ClusterStore, NodeStatePatch } from '../../src/store/cluster-store.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { NodeClient } from '../../src/upstream/node-client.js';

/** A node nobody connects to. */
const NOWHERE = 'http://127.0.0.1:9/v1';

describe('NodeState shared with other instances', () => {
  const clients: NodeClient[] = [];
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  /** A node of max_concurrency 3 whose links record what it tells the other instances. */
  function linkedNode(health: Partial<HealthSettings>, share: (max: number) => number = (max) => max) {
    const config = parseConfigText(
      `store: memory\nnodes: [{ id: n, provider: openai, base_url: "${NOWHERE}", max_concurrency: 3 }]\nmodels: [{ id: m, routes: [{ node: n }] }]\n`,
      'node-state-sharing',
      {},
    );
    const node = config.nodes[0];
    assert.ok(node);
    const client = new NodeClient(node);
    clients.push(client);
    const told: NodeStatePatch[] = [];
    const links: NodeStateLinks = { concurrencyShare: share, changed: (_id, patch) => told.push(patch) };
    return { state: new NodeState(node, client, { ...config.health, ...health }, links), told };
  }

  test('drains, ejections and recoveries made here are told; ordinary successes are not', () => {
    const { state, told } = linkedNode({ failureThreshold: 1, baseEjectionMs: 100 });
    const now = 1_000_000;
    state.recordSuccess(5);
    assert.deepEqual(told, [], 'a success of a healthy node is nothing to tell');
    state.recordFailure(now);
    assert.deepEqual(told, [{ ejectedForMs: 100 }]);
    state.recordSuccess(5);
    assert.deepEqual(told, [{ ejectedForMs: 100 }, { ejectedForMs: null }], 'the recovery is told');
    state.setDrained(true);
    state.setDrained(false);
    assert.deepEqual(told.slice(2), [{ drained: true }, { drained: false }]);
  });

  test('changes from other instances are applied without being told again (no echo)', () => {
    const { state, told } = linkedNode({ failureThreshold: 1 });
    const now = 1_000_000;
    state.applyShared({ drained: true }, now);
    assert.equal(state.condition(now), 'drained');
    state.applyShared({ drained: false, ejectedForMs: 5000 }, now);
    assert.equal(state.condition(now), 'ejected');
    state.applyShared({ ejectedForMs: null }, now);
    assert.equal(state.condition(now), 'healthy');
    assert.deepEqual(told, []);
  });

  test('an ejection ends at the later of the two ends; a recovery ends it whatever its length', () => {
    const { state } = linkedNode({ failureThreshold: 1, baseEjectionMs: 1000 });
    const now = 1_000_000;
    state.recordFailure(now);
    state.applyShared({ ejectedForMs: 300 }, now);
    assert.equal(state.cooldownLeftMs(now), 1000, 'a shorter ejection elsewhere does not shorten this one');
    state.applyShared({ ejectedForMs: 4000 }, now);
    assert.equal(state.cooldownLeftMs(now), 4000, 'a longer one extends it');
    state.applyShared({ ejectedForMs: 0 }, now);
    assert.equal(state.cooldownLeftMs(now), 4000, 'an ejection already over changes nothing');
    state.applyShared({ ejectedForMs: null }, now);
    assert.equal(state.condition(now), 'healthy');
  });

  test("another instance's ejection leaves this instance's failure count and cooldown doubling alone", () => {
    const { state, told } = linkedNode({ failureThreshold: 2, baseEjectionMs: 100, maxEjectionMs: 10_000 });
    let now = 1_000_000;
    state.applyShared({ ejectedForMs: 5000 }, now);
    now += 5000;
    assert.equal(state.condition(now), 'probing', 'tried again once the shared cooldown passed');
    assert.equal(state.tryAcquire(now), 'probe');
    state.recordFailure(now);
    state.release('probe');
    assert.equal(
      state.cooldownLeftMs(now),
      100,
      "the failed probe ejects with this instance's first cooldown, not a doubled one",
    );
    assert.deepEqual(told, [{ ejectedForMs: 100 }]);
  });

  test("max_concurrency is this instance's share: a full share refuses a slot", () => {
    const { state } = linkedNode({}, (max) => max - 2);
    assert.equal(state.effectiveMaxConcurrency, 1);
    assert.equal(state.tryAcquire(), 'slot');
    assert.equal(state.isAvailable(), false);
    assert.equal(state.tryAcquire(), false);
    state.release('slot');
    assert.equal(state.tryAcquire(), 'slot');
  });
});

describe('NodeStateSync', () => {
  test("applies the stored drain and ejection at start, then other instances' changes, never its own", async () => {
    const store = new MemoryStore();
    await store.cluster.writeNodeState('a', { drained: true }, 'earlier');
    await store.cluster.writeNodeState('b', { ejectedForMs: 60_000 }, 'earlier');
    await store.cluster.writeNodeState('gone', { drained: true }, 'earlier');
    const config = parseConfigText(
      `store: memory\nnodes:\n  - { id: a, provider: openai, base_url: "${NOWHERE}" }\n  - { id: b, provider: openai, base_url: "${NOWHERE}" }\nmodels: [{ id: m, routes: [{ node: a }, { node: b }] }]\n`,
      'node-state-sync',
      {},
    );
    const sync = new NodeStateSync(store, 'me', pino({ level: 'silent' }));
    const nodes = new NodeRegistry(async (node) => ({ node, stop: async () => undefined }), config.health, {
      concurrencyShare: (max) => max,
      changed: (id, patch) => sync.publish(id, patch),
    });
    after(() => nodes.close());
    await nodes.reconcile(config.nodes);
    await sync.follow(nodes);
    const a = nodes.get('a') as NodeState;
    const b = nodes.get('b') as NodeState;
    assert.equal(a.condition(), 'drained', 'a drain made before this instance started');
    assert.equal(b.condition(), 'ejected', 'an ejection still running when this instance started');
    assert.ok(b.cooldownLeftMs() > 50_000);

    await store.cluster.writeNodeState('a', { drained: false }, 'other');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(a.condition(), 'healthy', "another instance's enable");

    // This instance's own change comes back from the store (a microtask later) and is not
    // applied again: undone locally before it comes back, it stays undone.
    a.setDrained(true);
    a.drained = false;
    await sync.flushed();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(a.condition(), 'healthy', 'its own announcement is not applied again');
    const [stored] = (await store.cluster.loadNodeStates()).filter((record) => record.nodeId === 'a');
    assert.equal(stored?.drained, true, 'published');
    assert.equal(stored?.updatedBy, 'me');
  });
});

describe('NodeStateSync: writing', () => {
  test('one write at a time, in order; changes waiting meanwhile are merged; an ejection over before its turn is not sent', async () => {
    const written: Array<{ nodeId: string; patch: NodeStatePatch }> = [];
    let release: () => void = () => undefined;
    const cluster: ClusterStore = {
      shared: true,
      async writeNodeState(nodeId, patch) {
        written.push({ nodeId, patch });
        await new Promise<void>((resolve) => (release = resolve));
      },
      loadNodeStates: async () => [],
      heartbeat: async () => [],
      liveInstances: async () => [],
      leave: async () => undefined,
    };
    const slowStore = { cluster, onChange: () => undefined };
    const sync = new NodeStateSync(slowStore, 'me', pino({ level: 'silent' }));
    const now = Date.now();
    sync.publish('x', { drained: true }, now);
    assert.deepEqual(
      written.slice(),
      [{ nodeId: 'x', patch: { drained: true } }],
      'the first change is written at once',
    );
    sync.publish('x', { ejectedForMs: 60_000 }, now);
    sync.publish('y', { ejectedForMs: 1 }, now - 10);
    sync.publish('x', { drained: false }, now);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(written.length, 2, 'the next write waits for the one before');
    assert.equal(written[1]?.nodeId, 'x');
    assert.equal(written[1]?.patch.drained, false, 'the later drain change won');
    assert.ok((written[1]?.patch.ejectedForMs ?? 0) > 59_000, 'the ejection is sent as what is left of it');
    release();
    await sync.flushed();
    assert.equal(written.length, 2, "y's ejection was over before its turn: nothing to send");
  });
});
