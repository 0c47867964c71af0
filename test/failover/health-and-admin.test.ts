import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { admin, listNodes, nodeView } from '../support/admin-client.js';
import { freePort } from '../support/free-port.js';
import { expectError } from '../support/http-assertions.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { readSseUntil } from '../support/sse.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

const API_KEY = 'sk-health-admin-0123456789abcdef';
const ADMIN_KEY = 'admin-key-0123456789abcdef';
const TIMEOUT = { timeout: 10_000 };

function nodesOfLine(line: { attempts?: Array<{ node: string }> }): string[] {
  return (line.attempts ?? []).map((attempt) => attempt.node);
}

describe('admin API: authentication', () => {
  let node: SimulatedNode;
  let withKey: TestGateway;
  let withoutKey: TestGateway;

  before(async () => {
    node = await startSimulator();
    const body = `
nodes:
  - { id: n, provider: openai, base_url: "${node.baseUrl}" }
models:
  - { id: m, routes: [{ node: n }] }
keys:
  - { key: ${API_KEY} }
`;
    withKey = await startTestGateway(`store: memory\nadmin_key: ${ADMIN_KEY}\n${body}`);
    withoutKey = await startTestGateway(`store: memory\n${body}`);
  });

  after(async () => {
    await withKey?.close();
    await withoutKey?.close();
    await node?.close();
  });

  test('a missing admin key is 401 authentication_required', TIMEOUT, async () => {
    const { response } = await admin(withKey.origin, 'GET', '/nodes', undefined);
    const fresh = await fetch(`${withKey.origin}/admin/v1/nodes`);
    assert.equal(response.status, 401);
    await expectError(fresh, { status: 401, code: 'authentication_required', type: 'authentication_error' });
  });

  test('a wrong admin key (or a client API key) is 401 invalid_api_key', TIMEOUT, async () => {
    for (const key of ['admin-key-wrong-0123456789ab', API_KEY]) {
      const response = await fetch(`${withKey.origin}/admin/v1/nodes`, { headers: { authorization: `Bearer ${key}` } });
      await expectError(response, { status: 401, code: 'invalid_api_key', type: 'authentication_error' });
    }
  });

  test(
    'without admin_key in the configuration the admin API answers 403 access_denied, even to a key',
    TIMEOUT,
    async () => {
      const variants: Array<Record<string, string>> = [{}, { authorization: `Bearer ${ADMIN_KEY}` }];
      for (const headers of variants) {
        const response = await fetch(`${withoutKey.origin}/admin/v1/nodes`, { headers });
        await expectError(response, { status: 403, code: 'access_denied', type: 'permission_error' });
      }
      const drain = await fetch(`${withoutKey.origin}/admin/v1/nodes/n/drain`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      await expectError(drain, { status: 403, code: 'access_denied', type: 'permission_error' });
    },
  );

  test('the right key lists the nodes with state, in_flight, error_rate, latency_ms', TIMEOUT, async () => {
    const ok = await postChat(withKey.baseUrl, API_KEY, chatBody('m'));
    await ok.text();
    const nodes = await listNodes(withKey.origin, ADMIN_KEY);
    assert.equal(nodes.length, 1);
    const view = nodes[0];
    assert.ok(view);
    assert.equal(view.id, 'n');
    assert.equal(view.state, 'healthy');
    assert.equal(view.in_flight, 0);
    assert.equal(view.error_rate, 0);
    assert.equal(typeof view.latency_ms, 'number', 'latency after one successful request');
  });
});

describe('drain and enable', () => {
  let slow: SimulatedNode;
  let backup: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    slow = await startSimulator({ tokensPerSecond: 25 });
    backup = await startSimulator();
    gateway = await startTestGateway(`
store: memory
admin_key: ${ADMIN_KEY}
nodes:
  - { id: slow, provider: openai, base_url: "${slow.baseUrl}" }
  - { id: backup, provider: openai, base_url: "${backup.baseUrl}" }
models:
  - { id: m, routes: [{ node: slow, priority: 0 }, { node: backup, priority: 1 }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([slow, backup].map((node) => node?.close()));
  });

  test(
    'a drained node takes no new requests while its in-flight stream finishes; enable brings it back',
    TIMEOUT,
    async () => {
      const stream = await postChat(gateway.baseUrl, API_KEY, chatBody('m', { stream: true, max_tokens: 30 }));
      assert.equal(stream.status, 200);
      const { rest } = await readSseUntil(stream, 2);
      assert.equal(slow.stats().inFlight, 1);

      const drained = await admin(gateway.origin, 'POST', '/nodes/slow/drain', ADMIN_KEY);
      assert.equal(drained.status, 200, JSON.stringify(drained.body));
      assert.equal((drained.body as { state: string }).state, 'drained');
      const view = await nodeView(gateway.origin, ADMIN_KEY, 'slow');
      assert.equal(view.state, 'drained');
      assert.equal(view.in_flight, 1, 'the stream is still in flight');

      slow.resetStats();
      backup.resetStats();
      for (let index = 0; index < 5; index++) {
        const response = await postChat(gateway.baseUrl, API_KEY, chatBody('m'));
        assert.equal(response.status, 200);
        const line = await gateway.logLine(response.headers.get('x-request-id'));
        await response.text();
        assert.deepEqual(nodesOfLine(line), ['backup']);
      }
      assert.equal(slow.stats().requests, 0, 'no new request reached the drained node');
      assert.equal(backup.stats().requests, 5);

      const finished = await rest;
      assert.equal(finished.data[finished.data.length - 1], '[DONE]', 'the in-flight stream finished normally');
      assert.ok(
        finished.data.every((data) => !data.includes('"error"')),
        'no error event in the drained stream',
      );
      await waitFor(async () => (await nodeView(gateway.origin, ADMIN_KEY, 'slow')).in_flight === 0);

      const enabled = await admin(gateway.origin, 'POST', '/nodes/slow/enable', ADMIN_KEY);
      assert.equal(enabled.status, 200);
      assert.equal((enabled.body as { state: string }).state, 'healthy');
      const after = await postChat(gateway.baseUrl, API_KEY, chatBody('m', { max_tokens: 3 }));
      assert.equal(after.status, 200);
      await after.text();
      assert.equal(slow.stats().requests, 1, 'the re-enabled node serves again');
    },
  );

  test('drain/enable of an unknown node is 404', TIMEOUT, async () => {
    const response = await admin(gateway.origin, 'POST', '/nodes/nope/drain', ADMIN_KEY);
    assert.equal(response.status, 404);
  });
});

describe('passive ejection and recovery (health: failure_threshold 2, base_ejection_ms 300)', () => {
  let flaky: SimulatedNode;
  let steady: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    flaky = await startSimulator();
    steady = await startSimulator();
    gateway = await startTestGateway(`
store: memory
admin_key: ${ADMIN_KEY}
health: { failure_threshold: 2, base_ejection_ms: 300, max_ejection_ms: 5000 }
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

  async function request(): Promise<string[]> {
    const response = await postChat(gateway.baseUrl, API_KEY, chatBody('m', { max_tokens: 3 }));
    assert.equal(response.status, 200, await response.clone().text());
    await response.text();
    return nodesOfLine(await gateway.logLine(response.headers.get('x-request-id')));
  }

  test(
    'two failures eject the node; traffic goes elsewhere; after the cooldown one request probes it and it is healthy again',
    TIMEOUT,
    async () => {
      flaky.setFaults({ failFirst: { count: 2, status: 500 } });
      flaky.resetStats();
      assert.deepEqual(await request(), ['flaky', 'steady']);
      assert.equal((await nodeView(gateway.origin, ADMIN_KEY, 'flaky')).state, 'healthy', 'one failure does not eject');
      assert.deepEqual(await request(), ['flaky', 'steady']);
      const ejected = await nodeView(gateway.origin, ADMIN_KEY, 'flaky');
      assert.equal(ejected.state, 'ejected');
      assert.ok(ejected.cooldown_ms > 0 && ejected.cooldown_ms <= 300, `cooldown ${ejected.cooldown_ms}`);
      assert.ok(ejected.error_rate > 0, 'the error rate shows the failures');

      assert.deepEqual(await request(), ['steady'], 'an ejected node is not tried');
      assert.equal(flaky.stats().requests, 2);

      await sleep(350);
      assert.equal((await nodeView(gateway.origin, ADMIN_KEY, 'flaky')).state, 'probing');
      assert.deepEqual(await request(), ['flaky'], 'after the cooldown one request goes to the node again');
      assert.equal((await nodeView(gateway.origin, ADMIN_KEY, 'flaky')).state, 'healthy');
      assert.deepEqual(await request(), ['flaky']);
    },
  );

  test('a failed probe request ejects again with a doubled cooldown; the next success resets it', TIMEOUT, async () => {
    flaky.setFaults({ failFirst: { count: 3, status: 503 } });
    assert.deepEqual(await request(), ['flaky', 'steady']);
    assert.deepEqual(await request(), ['flaky', 'steady']);
    assert.equal((await nodeView(gateway.origin, ADMIN_KEY, 'flaky')).state, 'ejected');
    await sleep(350);
    assert.deepEqual(await request(), ['flaky', 'steady'], 'the probe request failed over');
    const again = await nodeView(gateway.origin, ADMIN_KEY, 'flaky');
    assert.equal(again.state, 'ejected', 'one failed probe ejects at once');
    assert.ok(again.cooldown_ms > 300 && again.cooldown_ms <= 600, `the cooldown doubled: ${again.cooldown_ms}`);
    await sleep(again.cooldown_ms + 50);
    assert.deepEqual(await request(), ['flaky']);
    assert.equal((await nodeView(gateway.origin, ADMIN_KEY, 'flaky')).state, 'healthy');
  });
});

describe('active probes (health.probe_interval_ms: 100)', () => {
  let dying: SimulatedNode;
  let revived: SimulatedNode | undefined;
  let gateway: TestGateway;
  let deadPort: number;

  before(async () => {
    dying = await startSimulator();
    deadPort = await freePort();
    gateway = await startTestGateway(`
store: memory
admin_key: ${ADMIN_KEY}
health: { probe_interval_ms: 100, probe_timeout_ms: 300, base_ejection_ms: 60000 }
nodes:
  - { id: dying, provider: openai, base_url: "${dying.baseUrl}", timeouts: { connect_ms: 300 } }
  - { id: dead, provider: openai, base_url: "http://127.0.0.1:${deadPort}/v1", timeouts: { connect_ms: 300 } }
models:
  - { id: m, routes: [{ node: dying }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await dying?.close();
    await revived?.close();
  });

  test(
    'a node whose port is closed is ejected by probes; when it listens again a probe brings it back',
    TIMEOUT,
    async () => {
      await waitFor(async () => (await nodeView(gateway.origin, ADMIN_KEY, 'dead')).state === 'ejected', 2000);
      assert.equal(
        (await nodeView(gateway.origin, ADMIN_KEY, 'dying')).state,
        'healthy',
        'a live node stays healthy under probes',
      );

      const port = Number(new URL(dying.baseUrl).port);
      await dying.close();
      await waitFor(async () => (await nodeView(gateway.origin, ADMIN_KEY, 'dying')).state === 'ejected', 2000);
      const refused = await postChat(gateway.baseUrl, API_KEY, chatBody('m'));
      await expectError(refused, { status: 503, code: 'router_unavailable', type: 'service_unavailable' });
      assert.equal(refused.headers.get('x-switchyard-attempts'), null, 'no node was even tried');

      revived = new SimulatedNode();
      await revived.listen(port);
      await waitFor(async () => (await nodeView(gateway.origin, ADMIN_KEY, 'dying')).state === 'healthy', 2000);
      const ok = await postChat(gateway.baseUrl, API_KEY, chatBody('m'));
      assert.equal(ok.status, 200, await ok.clone().text());
      await ok.text();
      assert.equal(revived.stats().requests, 1);
    },
  );
});

describe('nodes added and removed at runtime through the admin API', () => {
  let base: SimulatedNode;
  let added: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    base = await startSimulator();
    added = await startSimulator({ tokensPerSecond: 25 });
    gateway = await startTestGateway(`
store: memory
admin_key: ${ADMIN_KEY}
nodes:
  - { id: base, provider: openai, base_url: "${base.baseUrl}" }
models:
  - { id: m, routes: [{ node: base, priority: 1 }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([base, added].map((node) => node?.close()));
  });

  test(
    'POST adds a node that serves traffic; a duplicate id is 400; DELETE removes it while its in-flight stream finishes',
    TIMEOUT,
    async () => {
      const entry = {
        id: 'added',
        provider: 'openai',
        base_url: added.baseUrl,
        max_concurrency: 4,
        models: [{ model: 'm', upstream_model: 'up-added' }],
      };
      const created = await admin(gateway.origin, 'POST', '/nodes', ADMIN_KEY, entry);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((created.body as { id: string; state: string }).id, 'added');
      assert.ok((await listNodes(gateway.origin, ADMIN_KEY)).some((node) => node.id === 'added'));

      for (const duplicate of [entry, { ...entry, id: 'base' }]) {
        const again = await admin(gateway.origin, 'POST', '/nodes', ADMIN_KEY, duplicate);
        assert.equal(again.status, 400, JSON.stringify(again.body));
        assert.equal((again.body as { error: { code: string; param: string } }).error.code, 'validation_failed');
        assert.equal((again.body as { error: { code: string; param: string } }).error.param, 'id');
      }
      const unknownModel = await admin(gateway.origin, 'POST', '/nodes', ADMIN_KEY, {
        ...entry,
        id: 'other',
        models: [{ model: 'no-such-model' }],
      });
      assert.equal(unknownModel.status, 400);

      added.resetStats();
      base.resetStats();
      const stream = await postChat(gateway.baseUrl, API_KEY, chatBody('m', { stream: true, max_tokens: 30 }));
      assert.equal(stream.status, 200);
      const { rest } = await readSseUntil(stream, 2);
      assert.equal(added.stats().requests, 1, 'the added node (priority 0) serves the model');
      assert.equal((added.stats().lastRequest?.body as { model?: string } | undefined)?.model, 'up-added');

      const removed = await admin(gateway.origin, 'DELETE', '/nodes/added', ADMIN_KEY);
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      assert.ok(!(await listNodes(gateway.origin, ADMIN_KEY)).some((node) => node.id === 'added'), 'no longer listed');

      const next = await postChat(gateway.baseUrl, API_KEY, chatBody('m', { max_tokens: 3 }));
      assert.equal(next.status, 200);
      await next.text();
      assert.equal(base.stats().requests, 1, 'new requests go to the remaining node');
      assert.equal(added.stats().requests, 1);

      const finished = await rest;
      assert.equal(finished.data[finished.data.length - 1], '[DONE]', 'the stream on the removed node finished');
      assert.ok(finished.data.every((data) => !data.includes('"error"')));

      const gone = await admin(gateway.origin, 'DELETE', '/nodes/added', ADMIN_KEY);
      assert.equal(gone.status, 404);
      const readded = await admin(gateway.origin, 'POST', '/nodes', ADMIN_KEY, entry);
      assert.equal(readded.status, 201, `a removed id can be added again: ${JSON.stringify(readded.body)}`);
    },
  );
});

describe('configuration reload without dropping in-flight requests', () => {
  let old: SimulatedNode;
  let fresh: SimulatedNode;
  let gateway: TestGateway;

  const yamlWith = (nodeId: string, baseUrl: string): string => `
store: memory
admin_key: ${ADMIN_KEY}
nodes:
  - { id: ${nodeId}, provider: openai, base_url: "${baseUrl}" }
models:
  - { id: m, routes: [{ node: ${nodeId} }] }
keys:
  - { key: ${API_KEY} }
`;

  before(async () => {
    old = await startSimulator({ tokensPerSecond: 25 });
    fresh = await startSimulator();
    gateway = await startTestGateway(yamlWith('old', old.baseUrl));
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([old, fresh].map((node) => node?.close()));
  });

  test(
    'a stream on a node removed by reload finishes with [DONE]; new requests go to the new node',
    TIMEOUT,
    async () => {
      const stream = await postChat(gateway.baseUrl, API_KEY, chatBody('m', { stream: true, max_tokens: 30 }));
      assert.equal(stream.status, 200);
      const { rest } = await readSseUntil(stream, 2);

      await gateway.running.reload(gateway.parse(yamlWith('fresh', fresh.baseUrl)));
      const nodes = await listNodes(gateway.origin, ADMIN_KEY);
      assert.deepEqual(
        nodes.map((node) => node.id),
        ['fresh'],
      );

      const next = await postChat(gateway.baseUrl, API_KEY, chatBody('m', { max_tokens: 3 }));
      assert.equal(next.status, 200, await next.clone().text());
      await next.text();
      assert.equal(fresh.stats().requests, 1);
      assert.equal(old.stats().requests, 1, 'the old node got nothing new');

      const finished = await rest;
      assert.equal(finished.data[finished.data.length - 1], '[DONE]');
      assert.ok(finished.data.every((data) => !data.includes('"error"')));
    },
  );
});
