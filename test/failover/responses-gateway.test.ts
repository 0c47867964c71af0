import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { RateLimitError } from 'openai';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { assertResponsesEventOrder, parseResponsesEvents } from '../support/responses-events.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// Issue 20 item 6: the gateway behind the Responses door behaves as on the chat endpoint —
// failover before the first byte, a failure after it as `error` + `response.failed`,
// numbered keep-alive events while the node is silent, abort of the node request when the
// client leaves, request limits (429), request ids on every answer.

const API_KEY = 'sk-e2e-responses-gateway-0123456789';
const LIMITED_KEY = 'sk-e2e-responses-gateway-limited-01';
const ALWAYS = 1_000_000;
const TIMEOUT = { timeout: 20_000 };

describe('the gateway behind the Responses door', () => {
  let good: SimulatedNode;
  let failing: SimulatedNode;
  let cutting: SimulatedNode;
  let slow: SimulatedNode;
  let silent: SimulatedNode;
  let refusing: SimulatedNode;
  let gateway: TestGateway;
  let client: OpenAI;

  before(async () => {
    good = await startSimulator();
    failing = await startSimulator({ faults: { failFirst: { count: ALWAYS, status: 500 } } });
    cutting = await startSimulator({ tokensPerSecond: 200, faults: { cutAfterChunks: 4 } });
    slow = await startSimulator({ tokensPerSecond: 20 });
    silent = await startSimulator({ faults: { firstByteDelayMs: 700 } });
    refusing = await startSimulator({ faults: { failFirst: { count: ALWAYS, status: 503 } } });
    gateway = await startTestGateway(`
store: memory
http: { sse_keepalive_ms: 200 }
health: { failure_threshold: 1000 }
nodes:
  - { id: good, provider: openai, base_url: "${good.baseUrl}" }
  - { id: failing, provider: openai, base_url: "${failing.baseUrl}" }
  - { id: cutting, provider: openai, base_url: "${cutting.baseUrl}" }
  - { id: slow, provider: openai, base_url: "${slow.baseUrl}" }
  - { id: silent, provider: openai, base_url: "${silent.baseUrl}" }
  - { id: refusing, provider: openai, base_url: "${refusing.baseUrl}" }
models:
  - { id: failover, routes: [{ node: failing, priority: 1 }, { node: good, priority: 2 }] }
  - { id: cut, routes: [{ node: cutting }] }
  - { id: slow, routes: [{ node: slow }] }
  - { id: silent, routes: [{ node: silent }] }
  - { id: refused-then-silent, routes: [{ node: refusing, priority: 1 }, { node: silent, priority: 2 }] }
keys:
  - { key: ${API_KEY} }
  - { key: ${LIMITED_KEY}, limits: { rpm: 2 } }
`);
    client = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 10_000 });
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([good, failing, cutting, slow, silent, refusing].map((node) => node?.close()));
  });

  const post = (body: Record<string, unknown>, init: RequestInit = {}) =>
    fetch(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...init,
    });

  test('a failing node before the first byte: the next one answers, JSON and stream', TIMEOUT, async () => {
    failing.resetStats();
    const { data, response } = await client.responses.create({ model: 'failover', input: 'Hi' }).withResponse();
    assert.equal(data.status, 'completed');
    assert.ok(response.headers.get('x-request-id'));
    const stream = await post({ model: 'failover', input: 'Hi', stream: true });
    const final = assertResponsesEventOrder(parseResponsesEvents(await stream.text()));
    assert.equal(final.status, 'completed');
    assert.equal(failing.stats().requests, 2, 'the failing node was tried first both times');
    const line = gateway.logs().find((entry) => entry.request_id === response.headers.get('x-request-id'));
    assert.deepEqual(
      line?.attempts?.map((attempt) => attempt.node),
      ['failing', 'good'],
    );
    assert.equal(line?.front_door, 'responses');
  });

  test('a node that breaks mid-stream: the events so far, then error and response.failed', TIMEOUT, async () => {
    const response = await post({ model: 'cut', input: 'Tell me a long story.', stream: true });
    assert.equal(response.status, 200);
    const events = parseResponsesEvents(await response.text());
    const final = assertResponsesEventOrder(events);
    assert.equal(final.status, 'failed');
    const error = events[events.length - 2];
    assert.equal(error?.name, 'error');
    const nested = error?.data.error as Record<string, unknown>;
    assert.equal(nested.code, error?.data.code, 'the nested and the flat form agree');
    assert.equal(typeof nested.message, 'string');
    assert.ok(
      events.some((event) => event.name === 'response.output_text.delta'),
      'text came before the failure',
    );

    const stream = client.responses.stream({ model: 'cut', input: 'Tell me a long story.' });
    await assert.rejects(
      (async () => {
        for await (const event of stream) void event;
      })(),
      OpenAI.APIError,
      'the client raises its own error class',
    );
  });

  test('a silent node: numbered keepalive events after response.created', TIMEOUT, async () => {
    const response = await post({ model: 'silent', input: 'Hi', stream: true });
    const events = parseResponsesEvents(await response.text());
    assertResponsesEventOrder(
      events
        .filter((event) => event.name !== 'keepalive')
        .map((event, index) => ({ ...event, data: { ...event.data, sequence_number: index } })),
    );
    const keepalives = events.filter((event) => event.name === 'keepalive');
    assert.ok(keepalives.length >= 2, `${keepalives.length} keep-alives`);
    assert.equal(events[0]?.name, 'response.created');
    events.forEach((event, index) => assert.equal(event.data.sequence_number, index));
  });

  test('a keep-alive during the second attempt: the headers carry the attempts finished so far', TIMEOUT, async () => {
    const response = await post({ model: 'refused-then-silent', input: 'Hi', stream: true });
    const events = parseResponsesEvents(await response.text());
    assert.equal(events[2]?.name, 'keepalive', 'the headers went out with the first keep-alive');
    const final = assertResponsesEventOrder(
      events
        .filter((event) => event.name !== 'keepalive')
        .map((event, index) => ({ ...event, data: { ...event.data, sequence_number: index } })),
    );
    assert.equal(final.status, 'completed');
    assert.equal(refusing.stats().requests, 1);
    const line = await gateway.logLine(response.headers.get('x-request-id'));
    assert.deepEqual(
      line.attempts?.map((attempt) => attempt.node),
      ['refusing', 'silent'],
    );
    assert.equal(
      response.headers.get('x-switchyard-attempts'),
      '1',
      `the refused attempt (${line.attempts?.[0]?.ms} ms, before the 200 ms keep-alive), not the silent one`,
    );
  });

  test('a client that leaves mid-stream aborts the node request', TIMEOUT, async () => {
    const controller = new AbortController();
    const response = await post(
      { model: 'slow', input: 'Tell me a long story.', stream: true },
      { signal: controller.signal },
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('response.output_text.delta')) seen += new TextDecoder().decode((await reader.read()).value);
    assert.equal(slow.stats().inFlight, 1);
    controller.abort();
    await waitFor(() => slow.stats().inFlight === 0, 2000, { what: 'the node request to close' });
    await waitFor(
      () => gateway.logs().some((line) => line.front_door === 'responses' && line.client_aborted === true),
      2000,
    );
  });

  test(
    'request limits: the third request in a minute with rpm 2 is 429, raised as RateLimitError',
    TIMEOUT,
    async () => {
      const limited = new OpenAI({ apiKey: LIMITED_KEY, baseURL: gateway.baseUrl, maxRetries: 0 });
      await limited.responses.create({ model: 'failover', input: 'one' });
      await limited.responses.create({ model: 'failover', input: 'two' });
      await assert.rejects(limited.responses.create({ model: 'failover', input: 'three' }), (error: unknown) => {
        assert.ok(error instanceof RateLimitError);
        assert.equal(error.code, 'rate_limited');
        assert.ok(Number(error.headers?.get('retry-after')) >= 1);
        assert.ok(error.requestID, 'the request id comes with the error');
        return true;
      });
    },
  );
});
