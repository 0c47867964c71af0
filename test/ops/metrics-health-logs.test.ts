import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { freePort } from '../support/free-port.js';
import { expectError } from '../support/http-assertions.js';
import { sseData } from '../support/sse.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { postChat } from '../support/post-chat.js';

const API_KEY = 'sk-ops-metrics-0123456789abcdef';
const ADMIN_KEY = 'admin-ops-metrics-0123456789';
const TIMEOUT = { timeout: 10_000 };
const MESSAGES = [{ role: 'user', content: 'Count the wagons on track nine.' }];

/** The value of one sample line of a Prometheus text body, e.g. `metric{a="b"}`; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const braces = /^[^{\s]+(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (braces === null) continue;
    const found = Object.fromEntries(
      [...(braces[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((match) => [match[1], match[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(braces[2]);
  }
  return undefined;
}

describe('metrics, health and request logs', () => {
  let node: SimulatedNode;
  let gateway: TestGateway;
  let origin: string;

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    postChat(gateway.baseUrl, API_KEY, body, { headers, timeoutMs: 5000 });
  const metrics = async () => {
    const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    return response.text();
  };

  before(async () => {
    node = await startSimulator();
    const downPort = await freePort();
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
failover: { max_attempts: 3 }
health: { failure_threshold: 100 }
nodes:
  - { id: good, provider: openai, base_url: "${node.baseUrl}" }
  - { id: down, provider: openai, base_url: "http://127.0.0.1:${downPort}/v1", weight: 1000, timeouts: { connect_ms: 500 } }
models:
  - id: plain
    routes: [{ node: good }]
  - id: via-down
    routes: [{ node: down }, { node: good, priority: 1 }]
keys:
  - { key: ${API_KEY}, name: ops }
`);
    origin = new URL(gateway.baseUrl).origin;
  });

  after(async () => {
    await gateway?.close();
    await node?.close();
  });

  test('/metrics needs the admin key on the main listener', TIMEOUT, async () => {
    await expectError(await fetch(`${origin}/metrics`), {
      status: 401,
      code: 'authentication_required',
      type: 'authentication_error',
    });
    await expectError(await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${API_KEY}` } }), {
      status: 401,
      code: 'invalid_api_key',
      type: 'authentication_error',
    });
  });

  test(
    'requests, tokens, latencies, attempts and failovers are counted by model, status, code and node',
    TIMEOUT,
    async () => {
      const json = await post({ model: 'plain', messages: MESSAGES });
      assert.equal(json.status, 200);
      const usage = ((await json.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
      const stream = await post({ model: 'plain', stream: true, messages: MESSAGES });
      assert.equal(stream.status, 200);
      assert.equal(sseData(await stream.text()).at(-1), '[DONE]');
      await expectError(await post({ model: 'plain', messages: MESSAGES, temperature: 9 }), {
        status: 400,
        code: 'validation_failed',
        type: 'invalid_request_error',
      });
      await expectError(await post({ model: 'no-such-model-123', messages: MESSAGES }), {
        status: 404,
        code: 'model_unavailable',
        type: 'invalid_request_error',
      });
      const failedOver = await post({ model: 'via-down', messages: MESSAGES });
      assert.equal(failedOver.status, 200);
      assert.equal(failedOver.headers.get('x-switchyard-attempts'), '2');
      await failedOver.arrayBuffer();

      const text = await metrics();
      assert.equal(
        sample(text, 'switchyard_requests_total', { front_door: 'chat', model: 'plain', status: '200', code: '' }),
        2,
      );
      // A body that failed validation names no model yet: model="".
      assert.equal(
        sample(text, 'switchyard_requests_total', {
          front_door: 'chat',
          model: '',
          status: '400',
          code: 'validation_failed',
        }),
        1,
      );
      // A model the configuration does not know never becomes a label value.
      assert.equal(
        sample(text, 'switchyard_requests_total', {
          front_door: 'chat',
          model: '_other',
          status: '404',
          code: 'model_unavailable',
        }),
        1,
      );
      assert.doesNotMatch(text, /no-such-model-123/);
      assert.equal(sample(text, 'switchyard_rejections_total', { code: 'validation_failed' }), 1);
      assert.equal(sample(text, 'switchyard_rejections_total', { code: 'model_unavailable' }), 1);
      assert.ok(
        (sample(text, 'switchyard_tokens_total', { model: 'plain', kind: 'prompt' }) ?? 0) >= usage.prompt_tokens * 2,
      );
      assert.ok(
        (sample(text, 'switchyard_tokens_total', { model: 'plain', kind: 'completion' }) ?? 0) >=
          usage.completion_tokens,
      );
      assert.equal(sample(text, 'switchyard_request_duration_seconds_count', { model: 'plain', stream: 'true' }), 1);
      assert.equal(sample(text, 'switchyard_time_to_first_byte_seconds_count', { model: 'plain', stream: 'false' }), 1);
      assert.equal(sample(text, 'switchyard_gateway_overhead_seconds_count', { stream: 'false' }), 2);
      assert.equal(sample(text, 'switchyard_node_attempts_total', { node: 'good', outcome: 'ok' }), 3);
      assert.equal(sample(text, 'switchyard_node_attempts_total', { node: 'down', outcome: 'failed' }), 1);
      assert.equal(sample(text, 'switchyard_failovers_total', { node: 'down' }), 1);
      assert.equal(sample(text, 'switchyard_node_state', { node: 'good', state: 'healthy' }), 1);
      assert.equal(sample(text, 'switchyard_node_state', { node: 'good', state: 'drained' }), 0);
      assert.equal(sample(text, 'switchyard_node_in_flight', { node: 'good' }), 0);
      assert.equal(sample(text, 'switchyard_dependency_up', { name: 'models_routable' }), 1);
      assert.ok(sample(text, 'process_resident_memory_bytes') !== undefined, 'default process metrics');
    },
  );

  test('recordCost adds to the cost counter of the model; unknown models are labelled _other', TIMEOUT, async () => {
    gateway.running.services.metrics.recordCost('plain', 0.25);
    gateway.running.services.metrics.recordCost('plain', 0.5);
    gateway.running.services.metrics.recordCost('plain', -1);
    gateway.running.services.metrics.recordCost('mystery', 1);
    const text = await metrics();
    assert.equal(sample(text, 'switchyard_cost_usd_total', { model: 'plain' }), 0.75);
    assert.equal(sample(text, 'switchyard_cost_usd_total', { model: '_other' }), 1);
  });

  test('node state and in-flight gauges follow the router: a drained node, a request in flight', TIMEOUT, async () => {
    const slow = await startSimulator({ tokensPerSecond: 20 });
    try {
      const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
      const added = await fetch(`${origin}/admin/v1/nodes`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({
          id: 'slow',
          provider: 'openai',
          base_url: slow.baseUrl,
          models: [{ model: 'plain', priority: 5 }],
        }),
      });
      assert.equal(added.status, 201, await added.text());
      assert.equal(
        (await fetch(`${origin}/admin/v1/nodes/good/drain`, { method: 'POST', headers: admin })).status,
        200,
      );
      const streaming = await post({ model: 'plain', stream: true, messages: MESSAGES, max_tokens: 30 });
      const reader = streaming.body!.getReader();
      await reader.read();
      const during = await metrics();
      assert.equal(sample(during, 'switchyard_node_state', { node: 'good', state: 'drained' }), 1);
      assert.equal(sample(during, 'switchyard_node_in_flight', { node: 'slow' }), 1);
      assert.equal(sample(during, 'switchyard_requests_in_flight'), 2, 'the stream and the scrape itself');
      await reader.cancel();
      assert.equal(
        (await fetch(`${origin}/admin/v1/nodes/good/enable`, { method: 'POST', headers: admin })).status,
        200,
      );
      assert.equal((await fetch(`${origin}/admin/v1/nodes/slow`, { method: 'DELETE', headers: admin })).status, 200);
    } finally {
      await slow.close();
    }
  });

  test(
    '/healthz and /readyz answer without auth; a failing registered check makes /readyz 503 and dependency_up 0',
    TIMEOUT,
    async () => {
      const healthz = await fetch(`${origin}/healthz`);
      assert.equal(healthz.status, 200);
      assert.deepEqual(await healthz.json(), { status: 'ok' });
      const ready = await fetch(`${origin}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(((await ready.json()) as { failing: string[] }).failing, []);

      const unregister = gateway.running.services.readiness.register({
        name: 'store',
        check: async () => {
          throw new Error('connection refused');
        },
      });
      const unregisterSlow = gateway.running.services.readiness.register({ name: 'redis', check: async () => false });
      try {
        const unready = await fetch(`${origin}/readyz`);
        assert.equal(unready.status, 503);
        const body = (await unready.json()) as {
          status: string;
          failing: string[];
          checks: Array<{ name: string; ok: boolean; reason?: string }>;
        };
        assert.equal(body.status, 'unready');
        assert.deepEqual(body.failing.sort(), ['redis', 'store']);
        assert.equal(body.checks.find((check) => check.name === 'store')?.reason, 'connection refused');
        const text = await metrics();
        assert.equal(sample(text, 'switchyard_dependency_up', { name: 'store' }), 0);
        assert.equal(sample(text, 'switchyard_dependency_up', { name: 'redis' }), 0);
        assert.equal(sample(text, 'switchyard_dependency_up', { name: 'models_routable' }), 1);
      } finally {
        unregister();
        unregisterSlow();
      }
      assert.equal((await fetch(`${origin}/readyz`)).status, 200);
    },
  );

  test('/readyz is 503 models_routable when every node is drained, without calling any node', TIMEOUT, async () => {
    const admin = { authorization: `Bearer ${ADMIN_KEY}` };
    node.resetStats();
    for (const id of ['good', 'down'])
      assert.equal(
        (await fetch(`${origin}/admin/v1/nodes/${id}/drain`, { method: 'POST', headers: admin })).status,
        200,
      );
    try {
      const unready = await fetch(`${origin}/readyz`);
      assert.equal(unready.status, 503);
      assert.deepEqual(((await unready.json()) as { failing: string[] }).failing, ['models_routable']);
    } finally {
      for (const id of ['good', 'down'])
        await fetch(`${origin}/admin/v1/nodes/${id}/enable`, { method: 'POST', headers: admin });
    }
    assert.equal(node.stats().requests, 0);
    assert.equal((await fetch(`${origin}/readyz`)).status, 200);
  });

  test(
    'one info line per request with ids, key prefix, model, node, attempts, tokens, cost and timings; never the key or the body',
    TIMEOUT,
    async () => {
      const response = await post(
        { model: 'via-down', messages: [{ role: 'user', content: 'secret-message-text-42' }] },
        { 'x-correlation-id': 'corr-ops-1' },
      );
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      await fetch(`${origin}/healthz`);
      const requestId = response.headers.get('x-request-id');
      const lines = gateway.logs().filter((line) => line.request_id === requestId);
      assert.equal(lines.length, 1);
      const line = lines[0] as Record<string, unknown>;
      assert.equal(line.level, 30);
      assert.equal(line.correlation_id, 'corr-ops-1');
      assert.equal(line.key_prefix, API_KEY.slice(0, 12));
      assert.equal(line.model, 'via-down');
      assert.equal(line.node, 'good');
      assert.deepEqual(
        (line.attempts as Array<{ node: string }>).map((attempt) => attempt.node),
        ['down', 'good'],
      );
      assert.equal(line.status, 200);
      assert.equal(line.stream, false);
      assert.equal(line.client_aborted, false);
      assert.equal(line.cost_usd, 0, 'cost_usd is booked (0: the model is free)');
      assert.equal(typeof (line.usage as { total_tokens: number }).total_tokens, 'number');
      assert.equal(typeof line.total_ms, 'number');
      assert.equal(typeof line.first_byte_ms, 'number');
      const all = JSON.stringify(gateway.logs());
      assert.ok(!all.includes(API_KEY), 'the key is never logged');
      assert.ok(!all.includes('secret-message-text-42'), 'the body is not logged without log.bodies');
      assert.ok(!gateway.logs().some((entry) => entry.path === '/healthz'), 'probes are not logged at info');
    },
  );
});

describe('separate metrics address and log.bodies', () => {
  test(
    'metrics.listen serves /metrics, /healthz and /readyz there without auth; the main listener has no /metrics',
    TIMEOUT,
    async () => {
      const node = await startSimulator();
      const gateway = await startTestGateway(`
metrics: { listen: { host: 127.0.0.1, port: 0 } }
log: { bodies: true }
nodes: [{ id: a, provider: openai, base_url: "${node.baseUrl}" }]
models: [{ id: m, routes: [{ node: a }] }]
keys: [{ key: ${API_KEY} }]
`);
      try {
        const metricsUrl = gateway.running.metricsUrl;
        assert.ok(metricsUrl !== undefined);
        const response = await postChat(gateway.baseUrl, API_KEY, {
          model: 'm',
          messages: [{ role: 'user', content: 'debug-body-marker' }],
        });
        assert.equal(response.status, 200);
        await response.arrayBuffer();
        const scrape = await fetch(metricsUrl);
        assert.equal(scrape.status, 200);
        assert.equal(
          sample(await scrape.text(), 'switchyard_requests_total', {
            front_door: 'chat',
            model: 'm',
            status: '200',
            code: '',
          }),
          1,
        );
        assert.equal((await fetch(new URL('/readyz', metricsUrl))).status, 200);
        assert.equal((await fetch(new URL('/healthz', metricsUrl))).status, 200);
        await expectError(await fetch(new URL('/v1/models', metricsUrl)), {
          status: 404,
          code: 'model_unavailable',
          type: 'invalid_request_error',
        });
        await expectError(await fetch(`${new URL(gateway.baseUrl).origin}/metrics`), {
          status: 404,
          code: 'model_unavailable',
          type: 'invalid_request_error',
        });
        const line = gateway.logs().find((entry) => entry.request_id === response.headers.get('x-request-id'));
        assert.match(String(line?.request_body), /debug-body-marker/, 'log.bodies puts the request body in the line');
        assert.ok(!JSON.stringify(gateway.logs()).includes(API_KEY), 'never the key, even with log.bodies');
      } finally {
        await gateway.close();
        await node.close();
      }
    },
  );
});
