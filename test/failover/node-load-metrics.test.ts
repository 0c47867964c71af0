import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { nodeView } from '../support/admin-client.js';
import { postChat } from '../support/post-chat.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Load read from the node (`load_metrics`): a node's own Prometheus page, here a tiny HTTP
 * server standing in for vLLM's /metrics, steers sessions away from a node with a long
 * queue; a page that can't be read leaves the node routed as before.
 */
const API_KEY = 'sk-load-metrics-0123456789abcdef';
const ADMIN_KEY = 'admin-load-metrics-0123456789abcdef';
const NODES = ['n1', 'n2', 'n3', 'n4'];

/** What the fake metrics endpoint answers: a status and a body. */
let page: { status: number; body: string } = { status: 404, body: 'not found' };

function vllmPage(waiting: number, kvCacheUsage: number): string {
  return [
    '# HELP vllm:num_requests_running Number of requests in model execution batches.',
    '# TYPE vllm:num_requests_running gauge',
    'vllm:num_requests_running{engine="0",model_name="m"} 2.0',
    '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
    '# TYPE vllm:num_requests_waiting gauge',
    `vllm:num_requests_waiting{engine="0",model_name="m"} ${waiting}.0`,
    `vllm:kv_cache_usage_perc{engine="0",model_name="m"} ${kvCacheUsage}`,
    '',
  ].join('\n');
}

describe('load read from the node', () => {
  const simulators: SimulatedNode[] = [];
  let metrics: Server;
  let gateway: TestGateway;
  let metricsReads = 0;

  before(async () => {
    metrics = createServer((request, response) => {
      metricsReads++;
      response.writeHead(page.status, { 'content-type': 'text/plain; version=0.0.4' });
      response.end(page.body);
    });
    await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve));
    const metricsUrl = `http://127.0.0.1:${(metrics.address() as AddressInfo).port}/metrics`;
    for (let index = 0; index < NODES.length; index++) simulators.push(await startSimulator());
    const extra = (id: string) =>
      id === 'n1' ? `, load_metrics: { url: "${metricsUrl}", interval_ms: 100, timeout_ms: 200 }` : '';
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
nodes:
${NODES.map((id, index) => `  - { id: ${id}, provider: openai, base_url: "${(simulators[index] as SimulatedNode).baseUrl}"${extra(id)} }`).join('\n')}
models:
  - { id: m, routes: [${NODES.map((id) => `{ node: ${id} }`).join(', ')}] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all(simulators.map((simulator) => simulator.close()));
    metrics?.closeAllConnections();
    await new Promise((resolve) => metrics?.close(resolve));
  });

  async function turn(session: string): Promise<{ node: string; affinity: string }> {
    const response = await postChat(
      gateway.baseUrl,
      API_KEY,
      { model: 'm', max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-session-id': session } },
    );
    assert.equal(response.status, 200);
    await response.text();
    const line = await gateway.logLine(response.headers.get('x-request-id'));
    return { node: String(line.node), affinity: String(line.affinity) };
  }

  const reported = async () =>
    (await nodeView(gateway.origin, ADMIN_KEY, 'n1')).reported_load as { waiting: number } | null;

  test(
    'a long queue reported by a node turns new sessions away from it; unreadable metrics route as before',
    {
      timeout: 30_000,
    },
    async () => {
      // Unreadable (404): sessions that prefer n1 are served there.
      await waitFor(() => metricsReads >= 2, 5000, { what: 'the gateway reading the metrics page' });
      assert.equal(await reported(), null);
      const sessions: string[] = [];
      for (let index = 0; sessions.length < 6 && index < 200; index++) {
        const served = await turn(`load-${index}`);
        if (served.node === 'n1') sessions.push(`load-${index}`);
      }
      assert.equal(sessions.length, 6, 'six sessions prefer n1');

      // n1 reports 50 requests waiting: its sessions go elsewhere, reported as spills.
      page = { status: 200, body: vllmPage(50, 0.4) };
      await waitFor(async () => (await reported()) !== null, 5000, { what: 'the report of n1' });
      assert.deepEqual(await reported(), { running: 2, waiting: 50, kv_cache_usage: 0.4 });
      const exposition = await (
        await fetch(`${gateway.origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
      ).text();
      assert.match(exposition, /switchyard_node_reported_waiting\{node="n1"\} 50\b/);
      for (const session of sessions) {
        const served = await turn(session);
        assert.notEqual(served.node, 'n1', `${session} avoids the queue`);
        assert.equal(served.affinity, 'spill');
      }

      // Garbage from the endpoint: the report is dropped and n1 takes its sessions again.
      page = { status: 200, body: '<html>upgrade in progress</html>' };
      await waitFor(async () => (await reported()) === null, 5000, { what: 'the report of n1 dropped' });
      for (const session of sessions) assert.deepEqual(await turn(session), { node: 'n1', affinity: 'hit' });
    },
  );

  test(
    'a node that stops answering its metrics in time is routed on the gateway count alone',
    {
      timeout: 30_000,
    },
    async () => {
      page = { status: 200, body: vllmPage(80, 0.99) };
      await waitFor(async () => (await reported())?.waiting === 80, 5000, { what: 'the report of n1' });
      // The endpoint hangs: reads time out, and three intervals later the last report is stale.
      metrics.removeAllListeners('request');
      metrics.on('request', () => undefined);
      await waitFor(async () => (await reported()) === null, 5000, { what: 'the stale report dropped' });
      const served = new Set<string>();
      for (let index = 0; index < 40; index++) served.add((await turn(`stale-${index}`)).node);
      assert.ok(served.has('n1'), 'n1 takes sessions again');
    },
  );
});
