import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { expectError } from '../support/http-assertions.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { readSse } from '../support/sse.js';
import { type LoggedAttempt, startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const API_KEY = 'sk-failover-0123456789abcdef';
const TIMEOUT = { timeout: 8000 };
const ALWAYS = 1_000_000;

function attemptsOf(line: { attempts?: LoggedAttempt[] }): Array<[string, number | undefined]> {
  return (line.attempts ?? []).map((attempt) => [attempt.node, attempt.status]);
}

function parseEvents(data: readonly string[]): Array<Record<string, unknown>> {
  return data.filter((entry) => entry !== '[DONE]').map((entry) => JSON.parse(entry) as Record<string, unknown>);
}

function contentOf(events: ReadonlyArray<Record<string, unknown>>): string {
  return events
    .flatMap((event) => (event.choices as Array<{ delta?: { content?: string } }> | undefined) ?? [])
    .map((choice) => choice.delta?.content ?? '')
    .join('');
}

describe('failover before the first byte (spec 8.3-8.5, PRODUCT.md decisions 1-2)', () => {
  let good: SimulatedNode;
  let failing: SimulatedNode;
  let resetting: SimulatedNode;
  let silent: SimulatedNode;
  let failing2: SimulatedNode;
  let clientError: SimulatedNode;
  let clientErrorBackup: SimulatedNode;
  let cutting: SimulatedNode;
  let cuttingBackup: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    good = await startSimulator();
    failing = await startSimulator({ faults: { failFirst: { count: ALWAYS, status: 500 } } });
    resetting = await startSimulator({ faults: { resetFirst: ALWAYS } });
    silent = await startSimulator({ faults: { firstByteDelayMs: 2000 } });
    failing2 = await startSimulator({ faults: { failFirst: { count: ALWAYS, status: 503 } } });
    clientError = await startSimulator();
    clientErrorBackup = await startSimulator();
    cutting = await startSimulator({ tokensPerSecond: 200, faults: { cutAfterChunks: 4 } });
    cuttingBackup = await startSimulator();
    gateway = await startTestGateway(`
store: memory
health: { failure_threshold: 1000 }
nodes:
  - { id: good, provider: openai, base_url: "${good.baseUrl}" }
  - { id: failing, provider: openai, base_url: "${failing.baseUrl}" }
  - { id: failing2, provider: openai, base_url: "${failing2.baseUrl}" }
  - { id: resetting, provider: openai, base_url: "${resetting.baseUrl}" }
  - { id: silent, provider: openai, base_url: "${silent.baseUrl}", timeouts: { first_byte_ms: 200 } }
  - { id: client-error, provider: openai, base_url: "${clientError.baseUrl}" }
  - { id: client-error-backup, provider: openai, base_url: "${clientErrorBackup.baseUrl}" }
  - { id: cutting, provider: openai, base_url: "${cutting.baseUrl}" }
  - { id: cutting-backup, provider: openai, base_url: "${cuttingBackup.baseUrl}" }
models:
  - { id: status-first, routes: [{ node: failing, model: up-a, priority: 0 }, { node: good, model: up-b, priority: 1 }] }
  - { id: reset-first, routes: [{ node: resetting, priority: 0 }, { node: good, priority: 1 }] }
  - { id: silent-first, routes: [{ node: silent, priority: 0 }, { node: good, priority: 1 }] }
  - { id: all-failing, routes: [{ node: failing, priority: 0 }, { node: resetting, priority: 1 }, { node: failing2, priority: 2 }] }
  - { id: client-error-first, routes: [{ node: client-error, priority: 0 }, { node: client-error-backup, priority: 1 }] }
  - { id: cut-first, routes: [{ node: cutting, priority: 0 }, { node: cutting-backup, priority: 1 }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all(
      [good, failing, resetting, silent, failing2, clientError, clientErrorBackup, cutting, cuttingBackup].map((node) =>
        node?.close(),
      ),
    );
  });

  test(
    'a failing node then a healthy one: JSON 200, no visible error, 2 attempts in header and log',
    TIMEOUT,
    async () => {
      failing.resetStats();
      good.resetStats();
      const response = await postChat(gateway.baseUrl, API_KEY, chatBody('status-first'));
      const text = await response.text();
      assert.equal(response.status, 200, text);
      const body = JSON.parse(text) as {
        object: string;
        model: string;
        choices: Array<{ message: { content: string } }>;
        error?: unknown;
      };
      assert.equal(body.error, undefined);
      assert.equal(body.object, 'chat.completion');
      assert.equal(body.model, 'status-first', 'the client sees its own model id, not the upstream name');
      assert.ok((body.choices[0]?.message.content ?? '').length > 0);
      assert.equal(response.headers.get('x-switchyard-attempts'), '2');
      assert.equal(failing.stats().requests, 1);
      assert.equal(good.stats().requests, 1);
      assert.equal(
        (good.stats().lastRequest?.body as { model?: string } | undefined)?.model,
        'up-b',
        'the healthy node got its own upstream model name',
      );
      const line = await gateway.logLine(response.headers.get('x-request-id'));
      assert.equal(line.status, 200);
      assert.deepEqual(attemptsOf(line), [
        ['failing', 500],
        ['good', 200],
      ]);
      assert.ok(
        typeof line.attempts?.[0]?.error === 'string' && line.attempts[0].error.length > 0,
        `the failed attempt says why: ${JSON.stringify(line.attempts)}`,
      );
      assert.equal(line.attempts?.[1]?.error, undefined);
      assert.ok(
        (line.attempts ?? []).every((attempt) => typeof attempt.ms === 'number'),
        'each attempt has a duration',
      );
    },
  );

  test('a failing node then a healthy one: stream 200, no error event, [DONE], 2 attempts', TIMEOUT, async () => {
    failing.resetStats();
    good.resetStats();
    const response = await postChat(gateway.baseUrl, API_KEY, chatBody('status-first', { stream: true }));
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(response.headers.get('x-switchyard-attempts'), '2');
    const { data } = await readSse(response);
    assert.equal(data[data.length - 1], '[DONE]');
    const events = parseEvents(data);
    assert.ok(
      events.every((event) => event.error === undefined),
      'no error event',
    );
    assert.ok(contentOf(events).length > 0);
    assert.equal(failing.stats().requests, 1);
    const line = await gateway.logLine(response.headers.get('x-request-id'));
    assert.deepEqual(attemptsOf(line), [
      ['failing', 500],
      ['good', 200],
    ]);
  });

  test(
    'a large streamed request fails over whole: each attempt sends its own body (one-shot bodies)',
    TIMEOUT,
    async () => {
      // Past ONE_SHOT_BODY_MIN_CHARACTERS (upstream/dispatch-body.ts): undici is given a body it
      // can write once, so the second node must get a body built afresh.
      const prompt = 'Stellwerk Grüße 日本 '.repeat(2_000);
      for (const [model, first] of [
        ['status-first', failing],
        ['reset-first', resetting],
      ] as const) {
        first.resetStats();
        good.resetStats();
        const messages = [{ role: 'user', content: prompt }];
        const response = await postChat(gateway.baseUrl, API_KEY, chatBody(model, { stream: true, messages }));
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('x-switchyard-attempts'), '2', model);
        const { data } = await readSse(response);
        assert.equal(data[data.length - 1], '[DONE]');
        assert.equal(first.stats().requests, 1);
        const received = good.stats().lastRequest;
        const body = received?.body as { messages?: Array<{ content?: unknown }> } | undefined;
        assert.equal(body?.messages?.[0]?.content, prompt, `${model}: the second node got the whole prompt`);
        assert.equal(received?.headers['transfer-encoding'], undefined);
        assert.ok(Number(received?.headers['content-length']) > Buffer.byteLength(prompt));
      }
    },
  );

  for (const stream of [false, true]) {
    test(`a connection reset fails over (${stream ? 'stream' : 'JSON'})`, TIMEOUT, async () => {
      resetting.resetStats();
      const response = await postChat(gateway.baseUrl, API_KEY, chatBody('reset-first', { stream }));
      const text = await response.text();
      assert.equal(response.status, 200, text);
      assert.equal(response.headers.get('x-switchyard-attempts'), '2');
      if (stream) assert.ok(text.trimEnd().endsWith('data: [DONE]'));
      assert.equal(resetting.stats().requests, 1);
      const line = await gateway.logLine(response.headers.get('x-request-id'));
      assert.deepEqual(
        line.attempts?.map((attempt) => attempt.node),
        ['resetting', 'good'],
      );
      assert.equal(line.attempts?.[0]?.status, undefined, 'a reset has no status');
      assert.match(line.attempts?.[0]?.error ?? '', /reset|socket|closed/i);
    });
  }

  for (const stream of [false, true]) {
    test(
      `a first-byte timeout (node first_byte_ms 200, node silent 2 s) fails over promptly (${stream ? 'stream' : 'JSON'})`,
      TIMEOUT,
      async () => {
        silent.resetStats();
        const started = performance.now();
        // A short reply: a non-streamed one may take first_byte_ms + 5 tokens at min_tokens_per_second (10): 700 ms.
        const body = chatBody('silent-first', { stream, max_tokens: 5 });
        const response = await postChat(gateway.baseUrl, API_KEY, body);
        const text = await response.text();
        const elapsed = performance.now() - started;
        assert.equal(response.status, 200, text);
        assert.equal(response.headers.get('x-switchyard-attempts'), '2');
        assert.ok(
          elapsed < 1500,
          `answered after the 200 ms first-byte timeout, not the node's 2 s (took ${Math.round(elapsed)} ms)`,
        );
        assert.equal(silent.stats().requests, 1);
        const line = await gateway.logLine(response.headers.get('x-request-id'));
        assert.deepEqual(
          line.attempts?.map((attempt) => attempt.node),
          ['silent', 'good'],
        );
        assert.match(line.attempts?.[0]?.error ?? '', /first byte|timeout/i);
        assert.ok((line.attempts?.[0]?.ms ?? 0) >= 150, 'the timed-out attempt lasted about first_byte_ms');
      },
    );
  }

  for (const stream of [false, true]) {
    test(
      `every node failing gives 503 router_unavailable with Retry-After (${stream ? 'stream' : 'JSON'})`,
      TIMEOUT,
      async () => {
        const response = await postChat(gateway.baseUrl, API_KEY, chatBody('all-failing', { stream }));
        const retryAfter = response.headers.get('retry-after');
        await expectError(response, { status: 503, code: 'router_unavailable', type: 'service_unavailable' });
        assert.ok(retryAfter !== null && Number(retryAfter) >= 0, `Retry-After header: ${retryAfter}`);
        assert.equal(response.headers.get('x-switchyard-attempts'), '3');
        const line = await gateway.logLine(response.headers.get('x-request-id'));
        assert.equal(line.status, 503);
        assert.equal(line.error_code, 'router_unavailable');
        assert.deepEqual(
          line.attempts?.map((attempt) => attempt.node),
          ['failing', 'resetting', 'failing2'],
        );
      },
    );
  }

  for (const stream of [false, true]) {
    test(
      `an upstream 400 passes through byte for byte and the next node is never called (${stream ? 'stream' : 'JSON'})`,
      TIMEOUT,
      async () => {
        const errorBody = {
          error: {
            message: "This model's maximum context length is 8 tokens. However, you requested 9001 tokens (Ünïcödé ✓).",
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
            extra: { vendor_field: [1, 2, 3] },
          },
        };
        clientError.setFaults({ failFirst: { count: 1, status: 400, body: errorBody } });
        clientError.resetStats();
        clientErrorBackup.resetStats();
        try {
          const response = await postChat(gateway.baseUrl, API_KEY, chatBody('client-error-first', { stream }));
          const bytes = Buffer.from(await response.arrayBuffer());
          assert.equal(response.status, 400);
          assert.ok(
            bytes.equals(Buffer.from(JSON.stringify(errorBody), 'utf8')),
            `byte for byte: ${bytes.toString('utf8')}`,
          );
          assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
          assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
          assert.equal(clientError.stats().requests, 1);
          assert.equal(clientErrorBackup.stats().requests, 0, 'a client error is never retried on another node');
          const line = await gateway.logLine(response.headers.get('x-request-id'));
          assert.equal(line.status, 400);
          assert.deepEqual(attemptsOf(line), [['client-error', 400]]);
        } finally {
          clientError.setFaults({});
        }
      },
    );
  }

  test(
    'a mid-stream cut: data, an estimated usage chunk, one bad_gateway error event, no [DONE], no other node',
    TIMEOUT,
    async () => {
      cutting.resetStats();
      cuttingBackup.resetStats();
      const response = await postChat(
        gateway.baseUrl,
        API_KEY,
        chatBody('cut-first', { stream: true, max_tokens: 200 }),
      );
      assert.equal(response.status, 200);
      const requestId = response.headers.get('x-request-id');
      const { data } = await readSse(response);
      assert.ok(!data.includes('[DONE]'), `no [DONE] after a failure: ${JSON.stringify(data)}`);
      const events = parseEvents(data);
      const errors = events.filter((event) => event.error !== undefined);
      assert.equal(errors.length, 1, 'exactly one error event');
      const last = events[events.length - 1] as { error?: { code?: string; type?: string; request_id?: string } };
      assert.ok(last.error, 'the error event is the last one');
      assert.equal(last.error.code, 'bad_gateway');
      assert.equal(last.error.type, 'service_unavailable');
      assert.equal(last.error.request_id, requestId);
      assert.ok(contentOf(events).length > 0, 'some data reached the client before the error');
      const usageChunk = events[events.length - 2] as {
        usage?: { estimated?: boolean; completion_tokens?: number };
        choices?: unknown[];
      };
      assert.ok(usageChunk.usage, `a usage chunk right before the error event: ${JSON.stringify(usageChunk)}`);
      assert.equal(usageChunk.usage.estimated, true);
      assert.ok((usageChunk.usage.completion_tokens ?? 0) > 0, 'the tokens produced are counted');
      assert.equal(cutting.stats().requests, 1);
      assert.equal(cuttingBackup.stats().requests, 0, 'no failover after the first byte');
      const line = await gateway.logLine(requestId);
      assert.equal(line.error_code, 'bad_gateway');
      assert.ok(line.usage, 'the log line has the usage');
      assert.equal(line.usage_estimated, true);
      assert.deepEqual(
        line.attempts?.map((attempt) => attempt.node),
        ['cutting'],
      );
    },
  );
});

describe('attempt budget (failover.max_attempts: 2) with candidates left', () => {
  let reset1: SimulatedNode;
  let reset2: SimulatedNode;
  let fail1: SimulatedNode;
  let fail2: SimulatedNode;
  let spare: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    reset1 = await startSimulator({ faults: { resetFirst: ALWAYS } });
    reset2 = await startSimulator({ faults: { resetFirst: ALWAYS } });
    fail1 = await startSimulator({ faults: { failFirst: { count: ALWAYS, status: 500 } } });
    fail2 = await startSimulator({ faults: { failFirst: { count: ALWAYS, status: 500 } } });
    spare = await startSimulator();
    gateway = await startTestGateway(`
store: memory
failover: { max_attempts: 2 }
health: { failure_threshold: 1000 }
nodes:
  - { id: reset1, provider: openai, base_url: "${reset1.baseUrl}" }
  - { id: reset2, provider: openai, base_url: "${reset2.baseUrl}" }
  - { id: fail1, provider: openai, base_url: "${fail1.baseUrl}" }
  - { id: fail2, provider: openai, base_url: "${fail2.baseUrl}" }
  - { id: spare, provider: openai, base_url: "${spare.baseUrl}" }
models:
  - { id: resets, routes: [{ node: reset1, priority: 0 }, { node: reset2, priority: 1 }, { node: spare, priority: 2 }] }
  - { id: statuses, routes: [{ node: fail1, priority: 0 }, { node: fail2, priority: 1 }, { node: spare, priority: 2 }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([reset1, reset2, fail1, fail2, spare].map((node) => node?.close()));
  });

  for (const stream of [false, true]) {
    test(
      `two resets spend the budget with a node left: 502 bad_gateway with Retry-After (${stream ? 'stream' : 'JSON'})`,
      TIMEOUT,
      async () => {
        spare.resetStats();
        const response = await postChat(gateway.baseUrl, API_KEY, chatBody('resets', { stream }));
        const retryAfter = response.headers.get('retry-after');
        await expectError(response, { status: 502, code: 'bad_gateway', type: 'service_unavailable' });
        assert.ok(retryAfter !== null, 'Retry-After header');
        assert.equal(spare.stats().requests, 0, 'the third node is not tried: the budget is 2');
        const line = await gateway.logLine(response.headers.get('x-request-id'));
        assert.deepEqual(
          line.attempts?.map((attempt) => attempt.node),
          ['reset1', 'reset2'],
        );
      },
    );
  }

  test(
    'two node 500s spend the budget with a node left: 503 router_unavailable (decision 2: 502 only for connection errors / invalid replies)',
    TIMEOUT,
    async () => {
      spare.resetStats();
      const response = await postChat(gateway.baseUrl, API_KEY, chatBody('statuses'));
      const retryAfter = response.headers.get('retry-after');
      await expectError(response, { status: 503, code: 'router_unavailable', type: 'service_unavailable' });
      assert.ok(retryAfter !== null, 'Retry-After header');
      assert.equal(spare.stats().requests, 0);
      const line = await gateway.logLine(response.headers.get('x-request-id'));
      assert.deepEqual(attemptsOf(line), [
        ['fail1', 500],
        ['fail2', 500],
      ]);
    },
  );
});
