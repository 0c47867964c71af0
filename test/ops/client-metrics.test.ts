import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { admin } from '../support/admin-client.js';
import { freePort } from '../support/free-port.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 29 item 4, PRODUCT decision 30: `switchyard_requests_total` counts every answer a client
// got — rejections before a node included — by door, model, status and the code of the error
// body; the operator's calls (admin API, console), /metrics and health probes are not in it.
// A mixed run of real HTTP requests against a real gateway, then one scrape.

const API_KEY = 'sk-client-metrics-0123456789abcdef';
const BROKE_KEY = 'sk-client-metrics-broke-0123456789';
const LIMITED_KEY = 'sk-client-metrics-limited-01234567';
const UNKNOWN_KEY = 'sk-client-metrics-unknown-0123456789';
const ADMIN_KEY = 'admin-client-metrics-0123456789abc';
const TIMEOUT = { timeout: 30_000 };

type Labels = Record<string, string>;

/** Every sample of a metric family in a Prometheus text body: its labels and value. */
function samples(text: string, name: string): Array<{ labels: Labels; value: number }> {
  const found: Array<{ labels: Labels; value: number }> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^[^{\s]+(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (match === null) continue;
    const labels = Object.fromEntries(
      [...(match[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]),
    ) as Labels;
    found.push({ labels, value: Number(match[2]) });
  }
  return found;
}

const keyOf = (labels: Labels, names: readonly string[]) => names.map((name) => labels[name] ?? '').join('|');

describe('client request metrics count what clients got', () => {
  let node: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    node = await startSimulator();
    const downPort = await freePort();
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
http: { body_limit_bytes: 65536 }
failover: { max_attempts: 3 }
health: { failure_threshold: 100 }
nodes:
  - { id: good, provider: openai, base_url: "${node.baseUrl}" }
  - { id: lonely, provider: openai, base_url: "${node.baseUrl}" }
  - { id: down, provider: openai, base_url: "http://127.0.0.1:${downPort}/v1", timeouts: { connect_ms: 500 } }
models:
  - { id: plain, routes: [{ node: good }] }
  - { id: paid, pricing: { input: 1, output: 1 }, routes: [{ node: good }] }
  - { id: via-down, routes: [{ node: down }, { node: good, priority: 1 }] }
  - { id: lonely-model, routes: [{ node: lonely }] }
accounts:
  - { id: broke, balance: 0 }
keys:
  - { key: ${API_KEY} }
  - { key: ${BROKE_KEY}, account: broke }
  - { key: ${LIMITED_KEY}, limits: { rpm: 1 } }
`);
  });

  after(async () => {
    await gateway?.close();
    await node?.close();
  });

  test(
    'every answer is counted once by door, model, status and body code; operator calls are apart',
    TIMEOUT,
    async () => {
      const { origin, baseUrl } = gateway;
      /** What each client request should add to switchyard_requests_total{front_door,model,status,code}. */
      const expected = new Map<string, number>();
      const seen = async (response: Response, labels: Labels) => {
        const body = await response.text();
        assert.equal(String(response.status), labels.status, `${JSON.stringify(labels)}: ${body.slice(0, 300)}`);
        if (labels.code !== '' && response.headers.get('content-type')?.includes('json') === true) {
          const error = (JSON.parse(body) as { error?: { code?: string; type?: string } }).error;
          // The OpenAI doors' envelope names the code; the metric's code label is the same word.
          if (error?.code !== undefined && error.code !== null) assert.equal(error.code, labels.code);
        }
        const key = keyOf(labels, ['front_door', 'model', 'status', 'code']);
        expected.set(key, (expected.get(key) ?? 0) + 1);
      };
      const messages = (key: string | undefined, body: unknown) =>
        fetch(`${baseUrl}/messages`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'anthropic-version': '2023-06-01',
            ...(key === undefined ? {} : { 'x-api-key': key }),
          },
          body: JSON.stringify(body),
        });
      const responses = (key: string, body: unknown) =>
        fetch(`${baseUrl}/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify(body),
        });

      // Successes through the three doors, and a failover.
      const chat = { front_door: 'chat', model: 'plain' };
      await seen(await postChat(baseUrl, API_KEY, chatBody('plain')), { ...chat, status: '200', code: '' });
      await seen(await postChat(baseUrl, API_KEY, chatBody('plain', { stream: true })), {
        ...chat,
        status: '200',
        code: '',
      });
      await seen(
        await messages(API_KEY, { model: 'plain', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
        {
          front_door: 'messages',
          model: 'plain',
          status: '200',
          code: '',
        },
      );
      await seen(await responses(API_KEY, { model: 'plain', input: 'hi' }), {
        front_door: 'responses',
        model: 'plain',
        status: '200',
        code: '',
      });
      await seen(await postChat(baseUrl, API_KEY, chatBody('via-down')), {
        front_door: 'chat',
        model: 'via-down',
        status: '200',
        code: '',
      });

      // Rejections before any node, each with the door of its path.
      await seen(await postChat(baseUrl, UNKNOWN_KEY, chatBody('plain')), {
        front_door: 'chat',
        model: '',
        status: '401',
        code: 'invalid_api_key',
      });
      await seen(await postChat(baseUrl, undefined, chatBody('plain')), {
        front_door: 'chat',
        model: '',
        status: '401',
        code: 'authentication_required',
      });
      await seen(await messages(UNKNOWN_KEY, { model: 'plain', max_tokens: 5, messages: [] }), {
        front_door: 'messages',
        model: '',
        status: '401',
        code: 'invalid_api_key',
      });
      await seen(await responses(API_KEY, { model: 'plain', input: 'hi', temperature: 'hot' }), {
        front_door: 'responses',
        model: '',
        status: '400',
        code: 'validation_failed',
      });
      await seen(await postChat(baseUrl, API_KEY, '{"model": "plain", "messages": ['), {
        front_door: 'chat',
        model: '',
        status: '400',
        code: 'validation_failed',
      });
      await seen(await postChat(baseUrl, API_KEY, chatBody('no-such-model-77')), {
        front_door: 'chat',
        model: '_other',
        status: '404',
        code: 'model_unavailable',
      });
      await seen(await postChat(baseUrl, API_KEY, chatBody('plain', { padding: 'x'.repeat(70_000) })), {
        front_door: 'chat',
        model: '',
        status: '413',
        code: 'payload_too_large',
      });
      await seen(await postChat(baseUrl, BROKE_KEY, chatBody('paid')), {
        front_door: 'chat',
        model: 'paid',
        status: '402',
        code: 'insufficient_balance',
      });
      await seen(await postChat(baseUrl, LIMITED_KEY, chatBody('plain')), { ...chat, status: '200', code: '' });
      const limited = await postChat(baseUrl, LIMITED_KEY, chatBody('plain'));
      await seen(limited, {
        front_door: 'chat',
        model: '',
        status: '429',
        code: 'rate_limited',
      });
      const drained = await admin(origin, 'POST', '/nodes/lonely/drain', ADMIN_KEY);
      assert.equal(drained.status, 200);
      await seen(await postChat(baseUrl, API_KEY, chatBody('lonely-model')), {
        front_door: 'chat',
        model: 'lonely-model',
        status: '503',
        code: 'router_unavailable',
      });
      await seen(await fetch(`${baseUrl}/chat/completions`), {
        front_door: 'chat',
        model: '',
        status: '405',
        code: 'method_not_allowed',
      });
      // Paths no door owns: front_door="unknown", and the code the body says (404 model_unavailable).
      await seen(await fetch(`${baseUrl}/embeddings`, { method: 'POST', body: '{}' }), {
        front_door: 'unknown',
        model: '',
        status: '404',
        code: 'model_unavailable',
      });
      await seen(await fetch(`${origin}/`), {
        front_door: 'unknown',
        model: '',
        status: '404',
        code: 'model_unavailable',
      });
      await seen(await fetch(`${baseUrl}/models`, { headers: { authorization: `Bearer ${API_KEY}` } }), {
        front_door: 'models',
        model: '',
        status: '200',
        code: '',
      });
      await seen(await fetch(`${baseUrl}/models/plain`, { headers: { authorization: `Bearer ${UNKNOWN_KEY}` } }), {
        front_door: 'models',
        model: '',
        status: '401',
        code: 'invalid_api_key',
      });
      await seen(
        await fetch(`${baseUrl}/responses/resp_unknown`, { headers: { authorization: `Bearer ${API_KEY}` } }),
        {
          front_door: 'responses',
          model: '',
          status: '404',
          code: 'response_not_found',
        },
      );

      // The operator's calls: admin API (right and wrong key), console session, health, scrapes.
      assert.equal((await admin(origin, 'GET', '/nodes', ADMIN_KEY)).status, 200);
      assert.equal((await admin(origin, 'GET', '/nodes', 'wrong-admin-key-0123456789abc')).status, 401);
      assert.equal((await fetch(`${origin}/console/api/session`)).status, 401);
      const signIn = await fetch(`${origin}/console/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ admin_key: ADMIN_KEY }),
      });
      assert.equal(signIn.status, 201);
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const consoleNodes = await fetch(`${origin}/console/api/admin/nodes`, { headers: { cookie } });
      assert.equal(consoleNodes.status, 200);
      await consoleNodes.arrayBuffer();
      assert.equal((await fetch(`${origin}/healthz`)).status, 200);
      assert.equal((await fetch(`${origin}/readyz`)).status, 200);
      const scrape = () =>
        fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }).then((response) =>
          response.text(),
        );
      await scrape();
      const text = await scrape();

      const counted = new Map<string, number>();
      for (const { labels, value } of samples(text, 'switchyard_requests_total'))
        counted.set(keyOf(labels, ['front_door', 'model', 'status', 'code']), value);
      assert.deepEqual(
        [...counted].sort(),
        [...expected].sort(),
        'switchyard_requests_total holds exactly the clients’ answers, one series per door/model/status/code',
      );
      const clientTotal = [...counted.values()].reduce((sum, value) => sum + value, 0);
      assert.equal(
        clientTotal,
        [...expected.values()].reduce((sum, value) => sum + value, 0),
      );

      const operator = new Map(
        samples(text, 'switchyard_admin_requests_total').map(({ labels, value }) => [
          keyOf(labels, ['area', 'status']),
          value,
        ]),
      );
      // Admin: the drain, GET /nodes, the wrong key. Console: the session check, sign-in, the node list.
      assert.deepEqual([...operator].sort(), [
        ['admin|200', 2],
        ['admin|401', 1],
        ['console|200', 1],
        ['console|201', 1],
        ['console|401', 1],
      ]);

      // Time to first byte per model and the node that served it (the failover's second node).
      const firstByte = samples(text, 'switchyard_time_to_first_byte_seconds_count');
      const firstByteOf = (labels: Labels) =>
        firstByte.find((entry) => Object.entries(labels).every(([name, value]) => entry.labels[name] === value))?.value;
      assert.equal(firstByteOf({ model: 'plain', node: 'good', stream: 'false' }), 4);
      assert.equal(firstByteOf({ model: 'plain', node: 'good', stream: 'true' }), 1);
      assert.equal(firstByteOf({ model: 'via-down', node: 'good', stream: 'false' }), 1);
      assert.equal(firstByteOf({ model: 'via-down', node: 'down' }), undefined, 'a failed attempt sent no first byte');
      assert.ok(
        firstByte.every((entry) => ['good', 'lonely', 'down', ''].includes(entry.labels.node ?? '?')),
        'node labels are configured nodes',
      );
    },
  );
});
