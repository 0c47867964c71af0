import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { admin } from '../support/admin-client.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { readSse } from '../support/sse.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// PRODUCT decision 28: every request with a valid key has a record, rejected or not, with
// its attempts; requests without one are counted per address and reason. Real HTTP against
// the real gateway and simulated nodes; the records read back through the admin API.

const ADMIN_KEY = 'admin-key-request-record-0123456789';
const KEY = 'sk-record-team-0123456789abcdef';
const BROKE_KEY = 'sk-record-broke-0123456789abcdef';
const LIMITED_KEY = 'sk-record-limited-0123456789abcd';
const TIMEOUT = { timeout: 20_000 };
const ALWAYS = 1_000_000;

interface AttemptView {
  node: string;
  status: number | null;
  error_code: string | null;
  started_ms: number | null;
  first_byte_ms: number | null;
  total_ms: number;
}

interface RecordView {
  id: string;
  correlation_id: string;
  time: string;
  door: string;
  method: string | null;
  path: string;
  status: number | null;
  error_code: string | null;
  key_id: string | null;
  key_prefix: string | null;
  account: string | null;
  end_user: string | null;
  model: string | null;
  model_served: string | null;
  node: string | null;
  affinity: string | null;
  stream: boolean;
  attempts: AttemptView[];
  usage: { prompt_tokens: number; completion_tokens: number; cached_tokens: number; reasoning_tokens: number } | null;
  cost_usd: number | null;
  first_byte_ms: number | null;
  total_ms: number;
  trace_id: string | null;
  request_body?: string | null;
  reply_body?: string | null;
}

/** The value `probe` gives once it gives one (polled, bounded by waitFor's time-out). */
async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  let found: T | undefined;
  await waitFor(async () => (found = await probe()) !== undefined, timeoutMs, { what: 'the record' });
  return found as T;
}

describe('the request record (PRODUCT decision 28)', () => {
  let good: SimulatedNode;
  let failing: SimulatedNode;
  let lonely: SimulatedNode;
  let slow: SimulatedNode;
  let gateway: TestGateway;

  const adminGet = async (path: string) => {
    const answer = await admin(gateway.origin, 'GET', path, ADMIN_KEY);
    assert.equal(answer.status, 200, `GET ${path}: ${JSON.stringify(answer.body)}`);
    return answer.body as Record<string, unknown>;
  };
  const recordOf = async (requestId: string | null) => {
    assert.ok(requestId !== null, 'the answer has x-request-id');
    // The record is written when the response closes (after the client has read it): wait for it.
    return eventually(async () => {
      const answer = await admin(gateway.origin, 'GET', `/requests/${requestId}`, ADMIN_KEY);
      return answer.status === 200 ? (answer.body as RecordView) : undefined;
    });
  };

  before(async () => {
    good = await startSimulator();
    failing = await startSimulator({ faults: { failFirst: { count: ALWAYS, status: 500 } } });
    lonely = await startSimulator();
    slow = await startSimulator({ tokensPerSecond: 20 });
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
request_log: { flush_interval_ms: 50 }
http: { body_limit_bytes: 2048 }
health: { failure_threshold: 1000 }
nodes:
  - { id: good, provider: openai, base_url: "${good.baseUrl}" }
  - { id: failing, provider: openai, base_url: "${failing.baseUrl}" }
  - { id: lonely, provider: openai, base_url: "${lonely.baseUrl}" }
  - { id: slow, provider: openai, base_url: "${slow.baseUrl}" }
models:
  - { id: free, routes: [{ node: good }] }
  - { id: failover, routes: [{ node: failing, priority: 0 }, { node: good, priority: 1 }] }
  - { id: paid, pricing: { input: 1000, output: 1000 }, routes: [{ node: good }] }
  - { id: lonely, routes: [{ node: lonely }] }
  - { id: slow, routes: [{ node: slow }] }
accounts:
  - { id: team, balance: 100 }
  - { id: broke, balance: 0 }
keys:
  - { key: ${KEY}, account: team }
  - { key: ${BROKE_KEY}, account: broke }
  - { key: ${LIMITED_KEY}, account: team, limits: { rpm: 1 } }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([good, failing, lonely, slow].map((node) => node?.close()));
  });

  test(
    'a success has its ids, door, key, account, end user, model, node, tokens, cost and timings',
    TIMEOUT,
    async () => {
      const response = await postChat(gateway.baseUrl, KEY, chatBody('paid', { max_tokens: 8, user: 'alice' }), {
        headers: { 'x-correlation-id': 'case-4711' },
      });
      assert.equal(response.status, 200);
      await response.json();
      const record = await recordOf(response.headers.get('x-request-id'));
      assert.equal(record.correlation_id, 'case-4711');
      assert.equal(record.door, 'chat');
      assert.equal(record.method, 'POST');
      assert.equal(record.path, '/v1/chat/completions');
      assert.equal(record.status, 200);
      assert.equal(record.error_code, null);
      assert.match(record.key_id ?? '', /^key_/);
      assert.ok(KEY.startsWith(record.key_prefix ?? '-'), 'the key prefix is the start of the key');
      assert.equal(record.account, 'team');
      assert.equal(record.end_user, 'alice');
      assert.equal(record.model, 'paid');
      assert.equal(record.node, 'good');
      assert.equal(record.stream, false);
      assert.equal(record.attempts.length, 1);
      assert.equal(record.attempts[0]?.node, 'good');
      assert.equal(record.attempts[0]?.status, 200);
      assert.ok(record.usage !== null && record.usage.prompt_tokens > 0 && record.usage.completion_tokens > 0);
      assert.ok(record.cost_usd !== null && record.cost_usd > 0, `cost ${record.cost_usd}`);
      assert.ok(record.first_byte_ms !== null && record.first_byte_ms <= record.total_ms);
      assert.ok(Math.abs(Date.parse(record.time) - Date.now()) < 60_000, 'the time is now');
      assert.equal(record.request_body, null, 'no bodies unless request_log.bodies is on');
      assert.equal(record.reply_body, null);
    },
  );

  test('a stream is recorded as one, its attempt lasting to the end of the stream', TIMEOUT, async () => {
    const response = await postChat(gateway.baseUrl, KEY, chatBody('slow', { stream: true, max_tokens: 6 }));
    assert.equal(response.status, 200);
    await readSse(response);
    const record = await recordOf(response.headers.get('x-request-id'));
    assert.equal(record.stream, true);
    assert.equal(record.status, 200);
    assert.equal(record.node, 'slow');
    const [attempt] = record.attempts;
    assert.ok(attempt !== undefined && attempt.first_byte_ms !== null);
    // Six tokens at 20 a second: the stream takes a few hundred ms after its first byte.
    assert.ok(attempt.total_ms > attempt.first_byte_ms + 100, `attempt ${JSON.stringify(attempt)}`);
    assert.ok(record.first_byte_ms !== null && record.first_byte_ms < record.total_ms);
  });

  test('a failover shows both attempts in order, with statuses, codes and timings', TIMEOUT, async () => {
    const response = await postChat(gateway.baseUrl, KEY, chatBody('failover', { max_tokens: 5 }));
    assert.equal(response.status, 200);
    await response.json();
    const record = await recordOf(response.headers.get('x-request-id'));
    assert.deepEqual(
      record.attempts.map((attempt) => [attempt.node, attempt.status, attempt.error_code]),
      [
        ['failing', 500, 'bad_gateway'],
        ['good', 200, null],
      ],
    );
    const [first, second] = record.attempts as [AttemptView, AttemptView];
    assert.ok(first.started_ms !== null && second.started_ms !== null);
    assert.ok(second.started_ms >= first.started_ms + first.total_ms - 1, 'the second starts after the first ends');
    assert.ok(first.first_byte_ms !== null && first.first_byte_ms <= first.total_ms);
    assert.equal(record.node, 'good');
    assert.equal(record.status, 200);
  });

  test(
    'rejected requests are recorded with their status and code: 404, 413, 429, 402, 503 drained',
    TIMEOUT,
    async () => {
      const unknownModel = await postChat(gateway.baseUrl, KEY, chatBody('no-such-model'));
      assert.equal(unknownModel.status, 404);
      const tooLarge = await postChat(gateway.baseUrl, KEY, chatBody('free', { user: 'x'.repeat(4096) }));
      assert.equal(tooLarge.status, 413);
      const firstLimited = await postChat(gateway.baseUrl, LIMITED_KEY, chatBody('free', { max_tokens: 3 }));
      assert.equal(firstLimited.status, 200);
      await firstLimited.arrayBuffer();
      const limited = await postChat(gateway.baseUrl, LIMITED_KEY, chatBody('free', { max_tokens: 3 }));
      assert.equal(limited.status, 429);
      const broke = await postChat(gateway.baseUrl, BROKE_KEY, chatBody('paid', { max_tokens: 3 }));
      assert.equal(broke.status, 402);
      const drain = await admin(gateway.origin, 'POST', '/nodes/lonely/drain', ADMIN_KEY, {});
      assert.equal(drain.status, 200, JSON.stringify(drain.body));
      const drained = await postChat(gateway.baseUrl, KEY, chatBody('lonely'));
      assert.equal(drained.status, 503);

      const expected: Array<[Response, number, string, string | null]> = [
        [unknownModel, 404, 'model_unavailable', 'team'],
        [tooLarge, 413, 'payload_too_large', 'team'],
        [limited, 429, 'rate_limited', 'team'],
        [broke, 402, 'insufficient_balance', 'broke'],
        [drained, 503, 'router_unavailable', 'team'],
      ];
      for (const [response, status, code, account] of expected) {
        await response.arrayBuffer();
        const record = await recordOf(response.headers.get('x-request-id'));
        assert.equal(record.status, status, `${code}: ${JSON.stringify(record)}`);
        assert.equal(record.error_code, code);
        assert.equal(record.account, account);
        assert.match(record.key_id ?? '', /^key_/);
        assert.deepEqual(record.attempts, [], `${code}: no node was tried`);
        assert.equal(record.usage, null);
      }
    },
  );

  test('a client that leaves mid-stream is recorded as 499 client_aborted', TIMEOUT, async () => {
    const controller = new AbortController();
    const response = await postChat(gateway.baseUrl, KEY, chatBody('slow', { stream: true, max_tokens: 200 }), {
      signal: controller.signal,
    });
    assert.equal(response.status, 200);
    const requestId = response.headers.get('x-request-id');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    const record = await recordOf(requestId);
    assert.equal(record.status, 499);
    assert.equal(record.error_code, 'client_aborted');
    assert.equal(record.stream, true);
    assert.equal(record.attempts.length, 1);
    assert.equal(record.attempts[0]?.node, 'slow');
  });

  test('without a valid key: no record, a count per client address and reason', TIMEOUT, async () => {
    const unknown = 'sk-valid-looking-but-unknown-0123';
    const before = (await adminGet('/requests/unauthenticated')).data as Array<Record<string, unknown>>;
    const counted = (reason: string, list: Array<Record<string, unknown>>) =>
      list
        .filter((entry) => entry.client_address === '127.0.0.1' && entry.reason === reason)
        .reduce((sum, entry) => sum + (entry.count as number), 0);
    const responses = await Promise.all([
      postChat(gateway.baseUrl, unknown, chatBody('free')),
      postChat(gateway.baseUrl, unknown, chatBody('free')),
      postChat(gateway.baseUrl, undefined, chatBody('free')),
    ]);
    assert.deepEqual(
      responses.map((response) => response.status),
      [401, 401, 401],
    );
    for (const response of responses) await response.arrayBuffer();
    const after = await eventually(async () => {
      const list = (await adminGet('/requests/unauthenticated')).data as Array<Record<string, unknown>>;
      return counted('invalid_api_key', list) - counted('invalid_api_key', before) === 2 ? list : undefined;
    });
    assert.equal(counted('authentication_required', after) - counted('authentication_required', before), 1);
    const entry = after.find((item) => item.reason === 'invalid_api_key') as Record<string, unknown>;
    assert.ok(Date.parse(entry.first_seen as string) <= Date.parse(entry.last_seen as string));
    for (const response of responses) {
      const id = response.headers.get('x-request-id') as string;
      const answer = await admin(gateway.origin, 'GET', `/requests/${id}`, ADMIN_KEY);
      assert.equal(answer.status, 404, 'a request without a valid key has no record');
      assert.equal((answer.body as { error: { code: string } }).error.code, 'not_found');
    }
    const everything = JSON.stringify(await adminGet('/requests?limit=500'));
    assert.ok(!everything.includes(unknown), 'the unknown key is nowhere in the records');
  });

  test('admin calls are not requests: no record of them', TIMEOUT, async () => {
    const answer = await admin(gateway.origin, 'GET', '/keys', ADMIN_KEY);
    const id = answer.response.headers.get('x-request-id') as string;
    await (await postChat(gateway.baseUrl, KEY, chatBody('free', { max_tokens: 2 }))).arrayBuffer();
    const page = await adminGet('/requests?limit=500');
    assert.ok(!(page.data as RecordView[]).some((record) => record.id === id || record.path.startsWith('/admin')));
  });
});
