import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { admin, nodeView } from '../support/admin-client.js';
import { type GatewayProcess, startGatewayProcess, stopGatewayProcess } from '../support/gateway-process.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { postgresBackend } from '../support/store-backends.js';
import { startSimulator } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Gateway processes sharing one PostgreSQL schema share node drain and ejection (within a
 * second, through LISTEN/NOTIFY) and split a node's max_concurrency between them. The
 * nodes are simulated nodes in this process, reached by every gateway; faults are
 * injected into them, not mocked.
 */
const API_KEY = 'sk-shared-nodes-0123456789abcdef';
const ADMIN_KEY = 'admin-shared-nodes-0123456789';
/** What "within about a second" allows. */
const PROPAGATION_MS = 1000;
/** A dead instance's heartbeat expires after 6 s; the survivor notices at its next beat. */
const EXPIRY_DEADLINE_MS = 20_000;
/** The ejection cooldown: long enough to look at the other instances while it lasts. */
const EJECTION_MS = 6000;

const backend = await postgresBackend('shared-nodes');
after(() => backend.cleanup());

const stateOn = async (gateway: GatewayProcess, node: string) =>
  (await nodeView(gateway.origin, ADMIN_KEY, node)).state;
const capOn = async (gateway: GatewayProcess, node: string) =>
  (await nodeView(gateway.origin, ADMIN_KEY, node)).effective_max_concurrency as number;

async function chatOk(gateway: GatewayProcess): Promise<void> {
  const response = await postChat(gateway.baseUrl, API_KEY, chatBody('m', { max_tokens: 2 }));
  const body = await response.text();
  assert.equal(response.status, 200, body);
}

describe('node state and max_concurrency shared by gateway instances on one PostgreSQL', { skip: backend.skip }, () => {
  let primary: SimulatedNode;
  let backup: SimulatedNode;
  let slow: SimulatedNode;
  let directory: string;
  let file: string;
  let a: GatewayProcess;
  let b: GatewayProcess;
  const processes: GatewayProcess[] = [];

  before(async () => {
    primary = await startSimulator();
    backup = await startSimulator();
    // 10 tokens a second: a 60-token stream holds its slot for about 6 s.
    slow = await startSimulator({ tokensPerSecond: 10 });
    directory = mkdtempSync(join(tmpdir(), 'switchyard-shared-nodes-'));
    file = join(directory, 'gateway.yaml');
    writeFileSync(
      file,
      `listen: { host: 127.0.0.1, port: 0 }
store: "${backend.store}"
admin_key: ${ADMIN_KEY}
log_level: warn
usage: { journal_dir: ${join(directory, 'journal')} }
health: { failure_threshold: 2, base_ejection_ms: ${EJECTION_MS}, max_ejection_ms: 60000 }
nodes:
  - { id: primary, provider: openai, base_url: "${primary.baseUrl}" }
  - { id: backup, provider: openai, base_url: "${backup.baseUrl}" }
  - { id: slow, provider: openai, base_url: "${slow.baseUrl}", max_concurrency: 3 }
models:
  - { id: m, routes: [{ node: primary, priority: 0 }, { node: backup, priority: 1 }] }
  - { id: slow-m, routes: [{ node: slow }] }
keys:
  - { key: ${API_KEY} }
`,
    );
    // One after the other: both migrate the same schema (the second finds it done).
    a = await startGatewayProcess(file);
    processes.push(a);
    b = await startGatewayProcess(file);
    processes.push(b);
  });

  after(async () => {
    await Promise.all(processes.map((gateway) => stopGatewayProcess(gateway)));
    await Promise.all([primary?.close(), backup?.close(), slow?.close()]);
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  test(
    'a node drained through one instance is drained on the other within a second, and on an instance started later',
    { timeout: 60_000 },
    async () => {
      await chatOk(b);
      assert.equal(primary.stats().requests, 1, 'b routes to primary while it is healthy');

      const drained = await admin(a.origin, 'POST', '/nodes/primary/drain', ADMIN_KEY);
      assert.equal(drained.status, 200, JSON.stringify(drained.body));
      const seenMs = await waitFor(async () => (await stateOn(b, 'primary')) === 'drained', 5000);
      console.log(`# drain seen by the other instance after ${seenMs} ms`);
      assert.ok(seenMs <= PROPAGATION_MS, `drain seen after ${seenMs} ms`);
      primary.resetStats();
      for (let index = 0; index < 5; index++) await chatOk(b);
      assert.equal(primary.stats().requests, 0, 'b sends nothing to the drained node');

      // A third instance started now reads the drain from the store.
      const c = await startGatewayProcess(file);
      processes.push(c);
      assert.equal(await stateOn(c, 'primary'), 'drained', 'the later instance starts with the node drained');
      await chatOk(c);
      assert.equal(primary.stats().requests, 0, 'nor does the later instance');
      // Three instances split the slow node's 3 between them, 1 each.
      await waitFor(
        async () => (await Promise.all([a, b, c].map((gateway) => capOn(gateway, 'slow')))).every((cap) => cap === 1),
        5000,
      );
      // Leaving gracefully hands its share back at once, long before its heartbeat would expire.
      assert.equal(await stopGatewayProcess(c), 0, 'a clean stop');
      const handBackMs = await waitFor(async () => (await capOn(a, 'slow')) + (await capOn(b, 'slow')) === 3, 5000);
      assert.ok(handBackMs <= PROPAGATION_MS, `share handed back after ${handBackMs} ms`);

      const enabled = await admin(a.origin, 'POST', '/nodes/primary/enable', ADMIN_KEY);
      assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
      const enableMs = await waitFor(async () => (await stateOn(b, 'primary')) === 'healthy', 5000);
      assert.ok(enableMs <= PROPAGATION_MS, `enable seen after ${enableMs} ms`);
      await chatOk(b);
      assert.equal(primary.stats().requests, 1, 'b routes to primary again');
    },
  );

  test(
    'a failing node ejected by one instance is avoided by the other; its recovery on the first clears it on the other',
    { timeout: 60_000 },
    async () => {
      primary.setFaults({ failRatio: { ratio: 1, status: 500 } });
      // Two failures in a row on a (each request fails over to backup and succeeds).
      await waitFor(async () => {
        await chatOk(a);
        return (await stateOn(a, 'primary')) === 'ejected';
      }, 10_000);
      const seenMs = await waitFor(async () => (await stateOn(b, 'primary')) === 'ejected', 5000);
      console.log(`# ejection seen by the other instance after ${seenMs} ms`);
      assert.ok(seenMs <= PROPAGATION_MS, `ejection seen after ${seenMs} ms`);
      primary.resetStats();
      for (let index = 0; index < 5; index++) await chatOk(b);
      assert.equal(primary.stats().requests, 0, 'b never tries the node a ejected');

      // The node is fixed. Once the cooldown passed, a's next request probes it and succeeds.
      primary.setFaults({});
      await waitFor(async () => (await stateOn(a, 'primary')) === 'probing', EJECTION_MS + 5000);
      assert.notEqual(await stateOn(b, 'primary'), 'healthy', 'b has not tried the node itself');
      await chatOk(a);
      assert.equal(await stateOn(a, 'primary'), 'healthy');
      const recoveryMs = await waitFor(async () => (await stateOn(b, 'primary')) === 'healthy', 5000);
      assert.ok(recoveryMs <= PROPAGATION_MS, `recovery seen after ${recoveryMs} ms`);
      assert.equal(primary.stats().requests, 1, 'only a probed the node: b took the recovery from a');
    },
  );

  test(
    'max_concurrency 3 over two instances: caps 2 and 1, and together never more than 3 streams on the node',
    { timeout: 60_000 },
    async () => {
      const caps = [await capOn(a, 'slow'), await capOn(b, 'slow')];
      assert.deepEqual([...caps].sort(), [1, 2]);
      assert.equal(
        (await nodeView(a.origin, ADMIN_KEY, 'slow')).max_concurrency,
        3,
        'the configured value is shown too',
      );

      const abort = new AbortController();
      const stream = (gateway: GatewayProcess) =>
        postChat(
          gateway.baseUrl,
          API_KEY,
          { model: 'slow-m', messages: [{ role: 'user', content: 'hold on' }], max_tokens: 60, stream: true },
          { signal: abort.signal },
        );
      slow.resetStats();
      const responses = await Promise.all([a, a, a, b, b, b].map(stream));
      const served = (from: number, to: number) =>
        responses.slice(from, to).filter((response) => response.status === 200).length;
      try {
        assert.deepEqual(
          [served(0, 3), served(3, 6)],
          caps,
          `statuses ${responses.map((response) => response.status).join(',')}`,
        );
        for (const response of responses) if (response.status !== 200) assert.equal(response.status, 503);
        assert.equal(slow.stats().inFlight, 3);
        assert.ok(slow.stats().maxInFlight <= 3, `the node saw ${slow.stats().maxInFlight} streams at once`);
      } finally {
        abort.abort();
        await Promise.all(responses.map((response) => response.body?.cancel().catch(() => undefined)));
      }
      await waitFor(async () => slow.stats().inFlight === 0, 10_000);
    },
  );

  test(
    'an instance killed with SIGKILL leaves the registry when its heartbeat expires: the survivor takes all of max_concurrency',
    { timeout: 60_000 },
    async () => {
      await stopGatewayProcess(b, 'SIGKILL');
      const expiredMs = await waitFor(async () => (await capOn(a, 'slow')) === 3, EXPIRY_DEADLINE_MS);
      console.log(`# survivor back to max_concurrency 3 after ${expiredMs} ms`);

      const abort = new AbortController();
      const responses = await Promise.all(
        Array.from({ length: 4 }, () =>
          postChat(
            a.baseUrl,
            API_KEY,
            { model: 'slow-m', messages: [{ role: 'user', content: 'hold on' }], max_tokens: 60, stream: true },
            { signal: abort.signal },
          ),
        ),
      );
      try {
        assert.deepEqual(responses.map((response) => response.status).sort(), [200, 200, 200, 503]);
      } finally {
        abort.abort();
        await Promise.all(responses.map((response) => response.body?.cancel().catch(() => undefined)));
      }
    },
  );
});
