import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { freePort } from '../support/free-port.js';
import { expectError } from '../support/http-assertions.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { postChat } from '../support/post-chat.js';

const API_KEY = 'sk-e2e-http-errors-0123456789';
const BLOCKED_KEY = 'sk-e2e-blocked-0123456789';
const REVOKED_KEY = 'sk-e2e-revoked-0123456789';
const DELETED_KEY = 'sk-e2e-deleted-0123456789';
const TIMEOUT = { timeout: 5000 };
const MESSAGES = [{ role: 'user', content: 'How many tracks does the yard have?' }];
const CYRILLIC = /[\u0400-\u04FF]/;

describe('HTTP errors of the gateway', () => {
  let main: SimulatedNode;
  let faulty: SimulatedNode;
  let gateway: TestGateway;
  let origin: string;

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    postChat(gateway.baseUrl, API_KEY, body, { headers, timeoutMs: 4000 });

  before(async () => {
    main = await startSimulator();
    faulty = await startSimulator();
    const downPort = await freePort();
    gateway = await startTestGateway(
      `
store: memory
http: { body_limit_bytes: 2048 }
nodes:
  - { id: main, provider: openai, base_url: "${main.baseUrl}" }
  - { id: faulty, provider: openai, base_url: "${faulty.baseUrl}" }
  - { id: down, provider: openai, base_url: "http://127.0.0.1:${downPort}/v1", timeouts: { connect_ms: 1000 } }
models:
  - id: reasoner
    context_length: 32768
    reasoning: { default_effort: medium }
    pricing: { input: 0.2, output: 0.6 }
    routes: [{ node: main }]
  - id: plain
    routes: [{ node: main }]
  - id: faulty-model
    routes: [{ node: faulty }]
  - id: down-model
    routes: [{ node: down }]
keys:
  - { key: ${API_KEY} }
  - { key: ${BLOCKED_KEY}, status: blocked }
  - { key: ${REVOKED_KEY}, status: revoked }
  - { key: ${DELETED_KEY}, status: deleted }
`,
    );
    origin = new URL(gateway.baseUrl).origin;
  });

  after(async () => {
    await gateway?.close();
    await main?.close();
    await faulty?.close();
  });

  describe('400 validation_failed', () => {
    const valid = { model: 'plain', messages: MESSAGES };
    const rows: Array<{ name: string; body: unknown; param: string | null }> = [
      { name: 'malformed JSON', body: '{"model": "plain", "messages": [', param: null },
      { name: 'a JSON array body', body: '[1, 2]', param: null },
      { name: 'missing model', body: { messages: MESSAGES }, param: 'model' },
      { name: 'empty model', body: { ...valid, model: '' }, param: 'model' },
      { name: 'model not a string', body: { ...valid, model: 42 }, param: 'model' },
      { name: 'missing messages', body: { model: 'plain' }, param: 'messages' },
      { name: 'empty messages array', body: { ...valid, messages: [] }, param: 'messages' },
      { name: 'messages not an array', body: { ...valid, messages: 'hello' }, param: 'messages' },
      {
        name: 'unknown role',
        body: { ...valid, messages: [{ role: 'wizard', content: 'hi' }] },
        param: 'messages[0].role',
      },
      { name: 'temperature 2.5', body: { ...valid, temperature: 2.5 }, param: 'temperature' },
      { name: 'temperature as a string', body: { ...valid, temperature: 'hot' }, param: 'temperature' },
      { name: 'top_p 1.5', body: { ...valid, top_p: 1.5 }, param: 'top_p' },
      { name: 'n 0', body: { ...valid, n: 0 }, param: 'n' },
      { name: 'max_tokens 0', body: { ...valid, max_tokens: 0 }, param: 'max_tokens' },
      { name: 'presence_penalty 3', body: { ...valid, presence_penalty: 3 }, param: 'presence_penalty' },
      {
        name: 'reasoning_effort "extreme"',
        body: { ...valid, model: 'reasoner', reasoning_effort: 'extreme' },
        param: 'reasoning_effort',
      },
      {
        name: 'conflicting reasoning_effort and reasoning.effort',
        body: { ...valid, model: 'reasoner', reasoning_effort: 'low', reasoning: { effort: 'high' } },
        param: 'reasoning_effort',
      },
      { name: 'stream as a string', body: { ...valid, stream: 'true' }, param: 'stream' },
    ];
    for (const row of rows) {
      test(row.name, TIMEOUT, async () => {
        main.resetStats();
        await expectError(await post(row.body), {
          status: 400,
          code: 'validation_failed',
          type: 'invalid_request_error',
          param: row.param,
        });
        assert.equal(main.stats().requests, 0, 'nothing reached the node');
      });
    }

    test('Accept-Language: ru gives a Russian message with the same code, type and param', TIMEOUT, async () => {
      const english = await expectError(await post({ ...valid, temperature: 2.5 }), {
        status: 400,
        code: 'validation_failed',
        type: 'invalid_request_error',
        param: 'temperature',
      });
      const russian = await expectError(await post({ ...valid, temperature: 2.5 }, { 'accept-language': 'ru' }), {
        status: 400,
        code: 'validation_failed',
        type: 'invalid_request_error',
        param: 'temperature',
      });
      assert.match(russian.error.message, CYRILLIC);
      assert.doesNotMatch(english.error.message, CYRILLIC);
      const unauthorized = await postChat(gateway.baseUrl, undefined, valid, {
        headers: { 'accept-language': 'ru-RU,ru;q=0.9,en;q=0.5' },
      });
      const body = await expectError(unauthorized, {
        status: 401,
        code: 'authentication_required',
        type: 'authentication_error',
      });
      assert.match(body.error.message, CYRILLIC);
    });
  });

  describe('401', () => {
    const cases: Array<{ name: string; authorization: string | undefined; code: string }> = [
      { name: 'no Authorization header', authorization: undefined, code: 'authentication_required' },
      { name: 'Basic credentials', authorization: 'Basic xyz', code: 'authentication_required' },
      { name: 'Bearer without a token', authorization: 'Bearer ', code: 'authentication_required' },
      { name: 'unknown key', authorization: 'Bearer sk-nobody-knows-this-key-000', code: 'invalid_api_key' },
      { name: 'blocked key', authorization: `Bearer ${BLOCKED_KEY}`, code: 'invalid_api_key' },
      { name: 'revoked key', authorization: `Bearer ${REVOKED_KEY}`, code: 'invalid_api_key' },
      { name: 'deleted key', authorization: `Bearer ${DELETED_KEY}`, code: 'invalid_api_key' },
    ];
    for (const row of cases) {
      test(`${row.name} → ${row.code}`, TIMEOUT, async () => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (row.authorization !== undefined) headers.authorization = row.authorization;
        const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ model: 'plain', messages: MESSAGES }),
        });
        await expectError(response, { status: 401, code: row.code, type: 'authentication_error', param: null });
      });
    }
  });

  test('a sane X-Correlation-Id is echoed; an insane one is replaced by the request id', TIMEOUT, async () => {
    const sane = await post({ model: 'nope', messages: MESSAGES }, { 'x-correlation-id': 'order-7/step:2' });
    await sane.arrayBuffer();
    assert.equal(sane.headers.get('x-correlation-id'), 'order-7/step:2');
    const insane = await post({ model: 'nope', messages: MESSAGES }, { 'x-correlation-id': 'has spaces and "quotes"' });
    await insane.arrayBuffer();
    assert.equal(insane.headers.get('x-correlation-id'), insane.headers.get('x-request-id'));
  });

  test('404 model_unavailable for an unknown model, param model', TIMEOUT, async () => {
    const body = await expectError(await post({ model: 'gpt-17-ultra', messages: MESSAGES }), {
      status: 404,
      code: 'model_unavailable',
      type: 'invalid_request_error',
      param: 'model',
    });
    assert.match(body.error.message, /gpt-17-ultra/);
  });

  test('404 for an unknown path, still with both id headers and request_id', TIMEOUT, async () => {
    const response = await fetch(`${origin}/v2/foo`, { headers: { authorization: `Bearer ${API_KEY}` } });
    await expectError(response, { status: 404, code: 'model_unavailable', type: 'invalid_request_error' });
  });

  test('405 for GET /v1/chat/completions', TIMEOUT, async () => {
    const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    await expectError(response, { status: 405, code: 'method_not_allowed', type: 'invalid_request_error' });
  });

  test('405 carries the Allow header (RFC 9110 §15.5.6)', TIMEOUT, async () => {
    const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    await response.arrayBuffer();
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
  });

  test('413 payload_too_large for a body over http.body_limit_bytes', TIMEOUT, async () => {
    main.resetStats();
    const body = { model: 'plain', messages: [{ role: 'user', content: 'x'.repeat(10 * 1024) }] };
    await expectError(await post(body), { status: 413, code: 'payload_too_large', type: 'invalid_request_error' });
    assert.equal(main.stats().requests, 0);
  });

  test('413 also for a chunked body without Content-Length', TIMEOUT, async () => {
    const text = JSON.stringify({ model: 'plain', messages: [{ role: 'user', content: 'y'.repeat(10 * 1024) }] });
    const bytes = new TextEncoder().encode(text);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 1024)
          controller.enqueue(bytes.subarray(offset, offset + 1024));
        controller.close();
      },
    });
    const init: RequestInit & { duplex: 'half' } = {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
      signal: AbortSignal.timeout(4000),
    };
    await expectError(await fetch(`${gateway.baseUrl}/chat/completions`, init), {
      status: 413,
      code: 'payload_too_large',
      type: 'invalid_request_error',
    });
  });

  test('503 router_unavailable with Retry-After when the only node answers 500', TIMEOUT, async () => {
    faulty.setFaults({ failFirst: { count: 100, status: 500 } });
    faulty.resetStats();
    try {
      const response = await post({ model: 'faulty-model', messages: MESSAGES });
      const retryAfter = response.headers.get('retry-after');
      await expectError(response, { status: 503, code: 'router_unavailable', type: 'service_unavailable' });
      assert.match(retryAfter ?? '', /^\d+$/);
      assert.equal(faulty.stats().requests, 1);
    } finally {
      faulty.setFaults({});
    }
  });

  test('503 router_unavailable with Retry-After when the only node is unreachable', TIMEOUT, async () => {
    const response = await post({ model: 'down-model', messages: MESSAGES });
    const retryAfter = response.headers.get('retry-after');
    await expectError(response, { status: 503, code: 'router_unavailable', type: 'service_unavailable' });
    assert.match(retryAfter ?? '', /^\d+$/);
  });

  test('a node 401 or 429 is a node failure (failover set), not passed to the client', TIMEOUT, async () => {
    for (const status of [401, 429]) {
      faulty.setFaults({
        failFirst: {
          count: 1,
          status,
          body: { error: { message: 'node says no', type: 'x', param: null, code: 'node_code' } },
        },
      });
      try {
        await expectError(await post({ model: 'faulty-model', messages: MESSAGES }), {
          status: 503,
          code: 'router_unavailable',
          type: 'service_unavailable',
        });
      } finally {
        faulty.setFaults({});
      }
    }
  });

  describe('upstream client errors pass through unchanged (spec 7.3)', () => {
    const rows: Array<{ status: number; body: unknown; contentType: RegExp }> = [
      {
        status: 400,
        body: {
          error: {
            message: "This model's maximum context length is 16 tokens. However, your messages resulted in 40 tokens.",
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        },
        contentType: /^application\/json$/,
      },
      {
        // A string body goes out verbatim as text/plain: odd spacing proves nothing was re-serialized.
        status: 422,
        body: '{"error":  {"message": "Unprocessable:  content_filter", "code" : "content_filter"}}  \n',
        contentType: /^text\/plain/,
      },
      {
        status: 404,
        body: {
          error: {
            message: 'The model `upstream-x` does not exist',
            type: 'invalid_request_error',
            param: null,
            code: 'model_not_found',
          },
        },
        contentType: /^application\/json$/,
      },
    ];
    for (const row of rows) {
      const bytes = typeof row.body === 'string' ? row.body : JSON.stringify(row.body);
      test(`node ${row.status} → client ${row.status} with the node's body byte for byte`, TIMEOUT, async () => {
        faulty.setFaults({ failFirst: { count: 1, status: row.status, body: row.body } });
        faulty.resetStats();
        try {
          const response = await post({ model: 'faulty-model', messages: MESSAGES });
          const received = Buffer.from(await response.arrayBuffer()).toString('utf8');
          assert.equal(response.status, row.status);
          assert.equal(received, bytes);
          assert.match(response.headers.get('content-type') ?? '', row.contentType);
          assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
          assert.ok(response.headers.get('x-correlation-id'));
          assert.equal(faulty.stats().requests, 1, 'no failover on a client error');
        } finally {
          faulty.setFaults({});
        }
      });
    }
  });

  describe('GET /v1/models', () => {
    test('requires a key', TIMEOUT, async () => {
      await expectError(await fetch(`${gateway.baseUrl}/models`), {
        status: 401,
        code: 'authentication_required',
        type: 'authentication_error',
      });
      await expectError(
        await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${BLOCKED_KEY}` } }),
        {
          status: 401,
          code: 'invalid_api_key',
          type: 'authentication_error',
        },
      );
    });

    test('returns the OpenAI list shape with the gateway fields', TIMEOUT, async () => {
      const response = await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${API_KEY}` } });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
      assert.ok(response.headers.get('x-correlation-id'));
      const list = (await response.json()) as { object: unknown; data: Array<Record<string, unknown>> };
      assert.equal(list.object, 'list');
      assert.deepEqual(list.data.map((model) => model.id).sort(), ['down-model', 'faulty-model', 'plain', 'reasoner']);
      for (const model of list.data) {
        assert.equal(model.object, 'model');
        assert.equal(typeof model.created, 'number');
        assert.equal(typeof model.owned_by, 'string');
        for (const field of ['context_length', 'supports_reasoning', 'default_reasoning_effort', 'pricing']) {
          assert.ok(field in model, `${String(model.id)} has ${field}`);
        }
      }
      const reasoner = list.data.find((model) => model.id === 'reasoner');
      assert.ok(reasoner !== undefined);
      assert.equal(reasoner.context_length, 32768);
      assert.equal(reasoner.supports_reasoning, true);
      assert.equal(reasoner.default_reasoning_effort, 'medium');
      const pricing = reasoner.pricing as Record<string, unknown>;
      assert.equal(pricing.input, 0.2);
      assert.equal(pricing.output, 0.6);
      const plain = list.data.find((model) => model.id === 'plain');
      assert.ok(plain !== undefined);
      assert.equal(plain.supports_reasoning, false);
      assert.equal(plain.default_reasoning_effort, null);
    });
  });
});

describe('504 upstream_timeout', () => {
  let slow: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    slow = await startSimulator({ firstByteMs: 2000 });
    gateway = await startTestGateway(`
store: memory
timeouts: { total_ms: 300 }
nodes: [{ id: slow, provider: openai, base_url: "${slow.baseUrl}" }]
models: [{ id: slow-model, routes: [{ node: slow }] }]
keys: [{ key: ${API_KEY} }]
`);
  });

  after(async () => {
    await gateway?.close();
    await slow?.close();
  });

  test('the whole-request deadline gives 504 upstream_timeout, promptly', TIMEOUT, async () => {
    const started = Date.now();
    const response = await postChat(
      gateway.baseUrl,
      API_KEY,
      { model: 'slow-model', messages: MESSAGES },
      { timeoutMs: 4000 },
    );
    await expectError(response, { status: 504, code: 'upstream_timeout', type: 'service_unavailable' });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 250 && elapsed < 1500, `answered after ${elapsed} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(slow.stats().inFlight, 0, 'the node request was aborted');
  });
});
