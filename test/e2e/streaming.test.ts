import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { postChat } from '../support/post-chat.js';
import { readSse, readSseUntil } from '../support/sse.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

const API_KEY = 'sk-e2e-streaming-0123456789abcdef';
const TIMEOUT = { timeout: 6000 };
const MESSAGES = [{ role: 'user', content: 'Describe the hump yard in one paragraph.' }];

describe('SSE streaming through the gateway', () => {
  let instant: SimulatedNode;
  let fast: SimulatedNode;
  let slowStart: SimulatedNode;
  let slow: SimulatedNode;
  let broken: SimulatedNode;
  let cutting: SimulatedNode;
  let portal: SimulatedNode;
  let refusing: SimulatedNode;
  let gateway: TestGateway;

  const startStream = (
    model: string,
    extra: Record<string, unknown> = {},
    init: { signal?: AbortSignal; headers?: Record<string, string> } = {},
  ): Promise<Response> =>
    postChat(
      gateway.baseUrl,
      API_KEY,
      { model, messages: MESSAGES, stream: true, ...extra },
      { timeoutMs: 5000, ...init },
    );

  before(async () => {
    instant = await startSimulator();
    fast = await startSimulator({ tokensPerSecond: 50 });
    slowStart = await startSimulator({ firstByteMs: 700 });
    slow = await startSimulator({ tokensPerSecond: 20 });
    broken = await startSimulator({ faults: { failFirst: { count: 1000, status: 500 } } });
    cutting = await startSimulator({ faults: { cutAfterChunks: 5 } });
    // Answers 200 with an HTML page instead of an event stream (a captive portal, a misrouted proxy).
    portal = await startSimulator({
      faults: { failFirst: { count: 1000, status: 200, body: '<html>Sign in to continue</html>' } },
    });
    refusing = await startSimulator({ faults: { failFirst: { count: 1000, status: 503 } } });
    gateway = await startTestGateway(`
store: memory
http: { sse_keepalive_ms: 200 }
nodes:
  - { id: instant, provider: openai, base_url: "${instant.baseUrl}" }
  - { id: fast, provider: openai, base_url: "${fast.baseUrl}" }
  - { id: slow-start, provider: openai, base_url: "${slowStart.baseUrl}" }
  - { id: slow, provider: openai, base_url: "${slow.baseUrl}" }
  - { id: broken, provider: openai, base_url: "${broken.baseUrl}" }
  - { id: cutting, provider: openai, base_url: "${cutting.baseUrl}" }
  - { id: portal, provider: openai, base_url: "${portal.baseUrl}" }
  - { id: refusing, provider: openai, base_url: "${refusing.baseUrl}" }
models:
  - { id: instant-reasoner, reasoning: { default_effort: low }, routes: [{ node: instant }] }
  - { id: fast-reasoner, reasoning: { default_effort: low }, routes: [{ node: fast }] }
  - { id: slow-start-model, routes: [{ node: slow-start }] }
  - { id: slow-reasoner, reasoning: { default_effort: high }, routes: [{ node: slow }] }
  - { id: failover-model, reasoning: { default_effort: low }, routes: [{ node: broken, priority: 0 }, { node: instant, priority: 1 }] }
  - { id: cut-model, reasoning: { default_effort: low }, routes: [{ node: cutting }] }
  - { id: refused-then-silent-model, routes: [{ node: refusing, priority: 0 }, { node: slow-start, priority: 1 }] }
  - { id: portal-first-model, reasoning: { default_effort: low }, routes: [{ node: portal, priority: 0 }, { node: instant, priority: 1 }] }
keys:
  - { key: ${API_KEY} }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([instant, fast, slowStart, slow, broken, cutting, portal, refusing].map((node) => node?.close()));
  });

  test(
    'event-stream headers, id headers, JSON chunks, the usage on the last finish chunk, data: [DONE] last',
    TIMEOUT,
    async () => {
      const response = await startStream('instant-reasoner', {}, { headers: { 'x-correlation-id': 'stream-corr-1' } });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
      assert.equal(response.headers.get('x-correlation-id'), 'stream-corr-1');
      const { events, raw } = await readSse(response);
      assert.ok(raw.endsWith('data: [DONE]\n\n'), 'the body ends with data: [DONE]');
      const data = events.map((event) => event.data);
      assert.equal(data.filter((item) => item === '[DONE]').length, 1);
      assert.equal(data[data.length - 1], '[DONE]');
      const chunks = data
        .slice(0, -1)
        .map(
          (item) => JSON.parse(item) as { object: string; choices: unknown[]; usage?: { total_tokens: number } | null },
        );
      for (const chunk of chunks) assert.equal(chunk.object, 'chat.completion.chunk');
      const usageChunk = chunks[chunks.length - 1] as {
        choices: Array<{ finish_reason: string | null }>;
        usage?: unknown;
      };
      assert.ok(usageChunk?.usage, 'the last chunk before [DONE] carries usage');
      assert.equal(
        usageChunk.choices[0]?.finish_reason,
        'stop',
        'on the chunk that carries the finish reason (no include_usage asked)',
      );
      assert.ok(
        chunks.every((chunk) => chunk.choices.length > 0),
        'every chunk has a choice',
      );
    },
  );

  test('chunks are relayed as they come, not buffered (50 tokens/s node)', TIMEOUT, async () => {
    const started = performance.now();
    const { events } = await readSse(await startStream('fast-reasoner'));
    const first = events[0];
    const last = events[events.length - 1];
    assert.ok(first !== undefined && last !== undefined);
    const spread = last.at - first.at;
    const total = last.at - started;
    // ≥ 28 tokens at 50/s is ≥ 540 ms of pacing; buffering would deliver everything at once.
    assert.ok(spread > 300, `first and last event ${spread.toFixed(0)} ms apart`);
    assert.ok(
      first.at - started < total / 2,
      `first event after ${(first.at - started).toFixed(0)} of ${total.toFixed(0)} ms`,
    );
    const distinctArrivals = new Set(events.map((event) => event.at)).size;
    assert.ok(distinctArrivals > 5, `events arrived in ${distinctArrivals} separate reads`);
  });

  test('keep-alive comments while the node is silent, then a normal stream', TIMEOUT, async () => {
    const started = performance.now();
    const response = await startStream('slow-start-model');
    const headersAfter = performance.now() - started;
    assert.equal(response.status, 200);
    assert.ok(headersAfter < 650, `headers went out with the first keep-alive, after ${headersAfter.toFixed(0)} ms`);
    assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
    const { raw, events } = await readSse(response);
    const firstData = raw.indexOf('data:');
    assert.ok(firstData > 0);
    const before = raw.slice(0, firstData);
    const keepalives = before.match(/^: keep-alive$/gm) ?? [];
    assert.ok(
      keepalives.length >= 2,
      `${keepalives.length} keep-alive comments before the first event: ${JSON.stringify(before)}`,
    );
    assert.equal(before.replace(/: keep-alive\n\n/g, ''), '', 'only keep-alive comments before the first event');
    assert.equal(events[events.length - 1]?.data, '[DONE]');
  });

  test('a keep-alive during the second attempt: the headers carry the attempts finished so far', TIMEOUT, async () => {
    refusing.resetStats();
    const response = await startStream('refused-then-silent-model');
    assert.equal(response.status, 200);
    const { raw, events } = await readSse(response);
    assert.ok(raw.startsWith(': keep-alive\n\n'), 'the headers went out with a keep-alive');
    assert.equal(events[events.length - 1]?.data, '[DONE]');
    assert.equal(refusing.stats().requests, 1);
    const line = await gateway.logLine(response.headers.get('x-request-id'));
    assert.deepEqual(
      line.attempts?.map((attempt) => attempt.node),
      ['refusing', 'slow-start'],
      'the log line lists both',
    );
    assert.equal(
      response.headers.get('x-switchyard-attempts'),
      '1',
      `the refused attempt (${line.attempts?.[0]?.ms} ms, before the 200 ms keep-alive), not the silent one`,
    );
  });

  test('a client that disconnects mid-stream aborts the node request at once', TIMEOUT, async (t) => {
    slow.resetStats();
    const controller = new AbortController();
    const response = await startStream('slow-reasoner', {}, { signal: controller.signal });
    assert.equal(response.status, 200);
    const { first, rest } = await readSseUntil(response, 4);
    assert.ok(first.length >= 4 && !first.includes('[DONE]'), 'the stream is still going');
    assert.equal(slow.stats().inFlight, 1);
    const abortedAt = performance.now();
    controller.abort();
    assert.ok((await rest).failure, 'the client stopped reading');
    // ~140 tokens at 20/s would take ~7 s; the node must see the disconnect within a second.
    await waitFor(() => slow.stats().inFlight === 0, 1000);
    t.diagnostic(`node request closed ${(performance.now() - abortedAt).toFixed(0)} ms after the client left`);

    await waitFor(
      () => gateway.logs().some((line) => line.path === '/v1/chat/completions' && line.client_aborted === true),
      1000,
    );
    const line = gateway.logs().find((entry) => entry.client_aborted === true);
    assert.ok(line !== undefined);
    assert.equal(line.model, 'slow-reasoner');
    assert.equal(line.stream, true);
  });

  test('a client that leaves before the first byte (non-streaming) aborts the node request too', TIMEOUT, async () => {
    slowStart.resetStats();
    const controller = new AbortController();
    const pending = postChat(
      gateway.baseUrl,
      API_KEY,
      { model: 'slow-start-model', messages: MESSAGES },
      { signal: controller.signal },
    ).catch((error: unknown) => error);
    await waitFor(() => slowStart.stats().inFlight === 1, 1000);
    const abortedAt = performance.now();
    controller.abort();
    await pending;
    // The node would answer 700 ms after the request; it must see the disconnect well before.
    await waitFor(() => slowStart.stats().inFlight === 0, 400);
    assert.ok(performance.now() - abortedAt < 400);
  });

  test(
    'failover before the first byte: a broken node is skipped, the stream comes from the next',
    TIMEOUT,
    async () => {
      broken.resetStats();
      const response = await startStream('failover-model');
      const requestId = response.headers.get('x-request-id');
      const { events } = await readSse(response);
      assert.equal(response.status, 200);
      assert.equal(events[events.length - 1]?.data, '[DONE]');
      assert.equal(broken.stats().requests, 1);
      await waitFor(() => gateway.logs().some((line) => line.request_id === requestId));
      const line = gateway.logs().find((entry) => entry.request_id === requestId);
      const attempts = line?.attempts as Array<{ node: string; status?: number }> | undefined;
      assert.deepEqual(
        attempts?.map((attempt) => [attempt.node, attempt.status]),
        [
          ['broken', 500],
          ['instant', 200],
        ],
      );
    },
  );

  test(
    'a 200 that is not an event stream is an invalid node reply: fail over, never an empty success',
    TIMEOUT,
    async () => {
      portal.resetStats();
      const response = await startStream('portal-first-model');
      const requestId = response.headers.get('x-request-id');
      const { events } = await readSse(response);
      assert.equal(portal.stats().requests, 1);
      const chunks = events
        .map((event) => event.data)
        .filter((data) => data !== '[DONE]')
        .map((data) => JSON.parse(data) as { id: string; choices: Array<{ delta?: { content?: string } }> });
      const content = chunks
        .flatMap((chunk) => chunk.choices)
        .map((choice) => choice.delta?.content ?? '')
        .join('');
      await waitFor(() => gateway.logs().some((line) => line.request_id === requestId));
      const line = gateway.logs().find((entry) => entry.request_id === requestId);
      const attempts = (line?.attempts as Array<{ node: string }> | undefined)?.map((attempt) => attempt.node);
      assert.deepEqual(attempts, ['portal', 'instant'], 'the next node was tried');
      assert.ok(
        content.length > 0,
        `the client got an answer, not an empty stream: ${JSON.stringify(events.map((event) => event.data))}`,
      );
      assert.ok(
        chunks.every((chunk) => chunk.id !== ''),
        'no chunk with an empty id',
      );
    },
  );

  test('a node failing after the first byte: one error event, no [DONE], no failover', TIMEOUT, async () => {
    cutting.resetStats();
    const response = await startStream('cut-model');
    assert.equal(response.status, 200);
    const requestId = response.headers.get('x-request-id');
    const { events } = await readSse(response);
    const data = events.map((event) => event.data);
    assert.ok(!data.includes('[DONE]'), 'no [DONE] after a failure');
    const last = JSON.parse(data[data.length - 1] ?? 'null') as { error?: Record<string, unknown> } | null;
    assert.ok(last?.error, 'the last event is an error event');
    assert.deepEqual(Object.keys(last.error).sort(), ['code', 'message', 'param', 'request_id', 'type']);
    assert.equal(last.error.request_id, requestId);
    assert.ok(data.length >= 5, 'the events before the cut were relayed');
    assert.equal(cutting.stats().requests, 1, 'no retry after the first byte');
  });

  test('the request log line: ids, status, model, attempts; never the API key', TIMEOUT, async () => {
    const response = await startStream('instant-reasoner', {}, { headers: { 'x-correlation-id': 'log-corr-9' } });
    const requestId = response.headers.get('x-request-id');
    await readSse(response);
    const wrongKey = 'sk-e2e-wrong-key-for-log-check-42';
    const rejected = await postChat(gateway.baseUrl, wrongKey, { model: 'instant-reasoner', messages: MESSAGES });
    const rejectedId = rejected.headers.get('x-request-id');
    await rejected.arrayBuffer();

    await waitFor(
      () =>
        gateway.logs().some((line) => line.request_id === requestId) &&
        gateway.logs().some((line) => line.request_id === rejectedId),
    );
    const logs = gateway.logs();
    const line = logs.find((entry) => entry.request_id === requestId);
    assert.ok(line !== undefined);
    assert.equal(line.correlation_id, 'log-corr-9');
    assert.equal(line.status, 200);
    assert.equal(line.model, 'instant-reasoner');
    assert.equal(line.stream, true);
    const attempts = line.attempts as Array<{ node: string }> | undefined;
    assert.deepEqual(
      attempts?.map((attempt) => attempt.node),
      ['instant'],
    );
    assert.ok(line.usage !== undefined, 'usage is logged');

    const rejectedLine = logs.find((entry) => entry.request_id === rejectedId);
    assert.ok(rejectedLine !== undefined);
    assert.equal(rejectedLine.status, 401);
    assert.equal(rejectedLine.error_code, 'invalid_api_key');

    const everything = JSON.stringify(logs);
    assert.ok(!everything.includes(API_KEY), 'the API key never appears in the logs');
    assert.ok(!everything.includes(wrongKey), 'a presented wrong key never appears in the logs');
  });
});
