import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore, parseStoreLocation } from '../../src/store/open-store.js';
import type { StoreChange } from '../../src/store/records.js';
import type { Store } from '../../src/store/store.js';
import { storeBackends } from '../support/store-backends.js';
import { waitFor } from '../support/wait-for.js';

// The cluster tables (node_states, gateway_instances) behave the same on every store;
// only PostgreSQL says they are shared.

const backends = await storeBackends('cluster-store');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

const cases = [
  { name: 'memory', store: 'memory', skip: undefined as string | undefined, shared: false },
  ...backends.map((backend) => ({
    name: backend.name,
    store: backend.store,
    skip: backend.skip,
    shared: backend.name === 'postgres',
  })),
];

for (const backend of cases) {
  describe(`cluster store: ${backend.name}`, { skip: backend.skip }, () => {
    let store: Store;
    const changes: StoreChange[] = [];

    test('opens and says whether it is shared', async () => {
      store = await openStore(parseStoreLocation(backend.store));
      store.onChange((change) => changes.push(change));
      assert.equal(store.cluster.shared, backend.shared);
    });

    test('a node state patch changes only the fields it names, and is announced with the patch', async () => {
      await store.cluster.writeNodeState('n1', { drained: true }, 'inst-a');
      await store.cluster.writeNodeState('n1', { ejectedForMs: 5000 }, 'inst-b');
      let [record] = await store.cluster.loadNodeStates();
      assert.equal(record?.nodeId, 'n1');
      assert.equal(record?.drained, true, 'the ejection left the drain alone');
      assert.ok(
        record !== undefined && record.ejectedForMs > 3000 && record.ejectedForMs <= 5000,
        `ejected for ${record?.ejectedForMs} ms`,
      );
      assert.equal(record?.updatedBy, 'inst-b');

      await store.cluster.writeNodeState('n1', { drained: false }, 'inst-a');
      [record] = await store.cluster.loadNodeStates();
      assert.equal(record?.drained, false);
      assert.ok(record !== undefined && record.ejectedForMs > 0, 'the enable left the ejection alone');

      await store.cluster.writeNodeState('n1', { ejectedForMs: null }, 'inst-b');
      [record] = await store.cluster.loadNodeStates();
      assert.equal(record?.ejectedForMs, 0, 'a recovery ends the ejection');

      await waitFor(() => changes.filter((change) => change.kind === 'node').length >= 4, 5000);
      assert.deepEqual(
        changes.filter((change) => change.kind === 'node'),
        [
          { kind: 'node', id: 'n1', instanceId: 'inst-a', drained: true },
          { kind: 'node', id: 'n1', instanceId: 'inst-b', ejectedForMs: 5000 },
          { kind: 'node', id: 'n1', instanceId: 'inst-a', drained: false },
          { kind: 'node', id: 'n1', instanceId: 'inst-b', ejectedForMs: null },
        ],
      );
    });

    test('heartbeats list the live instances, sorted; silent ones expire; leaving removes one', async () => {
      assert.deepEqual(await store.cluster.heartbeat('inst-b', 60_000), ['inst-b']);
      assert.deepEqual(await store.cluster.heartbeat('inst-a', 60_000), ['inst-a', 'inst-b']);
      assert.deepEqual(
        await store.cluster.heartbeat('inst-a', 60_000),
        ['inst-a', 'inst-b'],
        'a second beat is no new instance',
      );
      await waitFor(() => changes.filter((change) => change.kind === 'instances').length >= 2, 5000);
      await sleep(30);
      assert.equal(changes.filter((change) => change.kind === 'instances').length, 2, 'only joins are announced');

      await sleep(400);
      // inst-c's heartbeat sees the others silent for more than 300 ms: they are dead.
      assert.deepEqual(await store.cluster.heartbeat('inst-c', 300), ['inst-c']);
      assert.deepEqual(await store.cluster.liveInstances(60_000), ['inst-c'], 'dead rows are deleted');
      await store.cluster.leave('inst-c');
      assert.deepEqual(await store.cluster.liveInstances(60_000), []);
      await waitFor(() => changes.filter((change) => change.kind === 'instances').length >= 4, 5000);
    });

    test('closes', async () => {
      await store.close();
    });
  });
}
