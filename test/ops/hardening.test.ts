import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { expectError } from '../support/http-assertions.js';
import { expectRawError, rawExchange } from '../support/raw-http.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { postChat } from '../support/post-chat.js';

const API_KEY = 'sk-ops-hardening-0123456789';
const ADMIN_KEY = 'admin-ops-hardening-0123456789';
const TIMEOUT = { timeout: 10_000 };
const MESSAGE = { role: 'user', content: 'Check the brakes.' };

describe('hardening against slow, oversized and hostile requests', () => {
  let node: SimulatedNode;
  let gateway: TestGateway;

  const post = (body: unknown) => postChat(gateway.baseUrl, API_KEY, body, { timeoutMs: 5000 });

  before(async () => {
    node = await startSimulator();
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
http: { headers_timeout_ms: 400, body_idle_timeout_ms: 300, max_connections: 4, max_messages: 3, max_choices: 2 }
nodes: [{ id: a, provider: openai, base_url: "${node.baseUrl}" }]
models: [{ id: m, routes: [{ node: a }] }]
keys: [{ key: ${API_KEY} }]
`);
  });

  after(async () => {
    await gateway?.close();
    await node?.close();
  });

  test('headers that never finish: 408 request_timeout in the spec format', TIMEOUT, async () => {
    const started = Date.now();
    const response = await rawExchange(gateway.port, ['POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n'], {
      timeoutMs: 4000,
    });
    expectRawError(response, 408, 'request_timeout');
    assert.ok(Date.now() - started >= 350);
  });

  test('a body that stalls: 408 request_timeout after body_idle_timeout_ms, connection closed', TIMEOUT, async () => {
    const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${API_KEY}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`;
    const response = await rawExchange(gateway.port, [head, '{"model": "m", '], { pauseMs: 50, timeoutMs: 4000 });
    expectRawError(response, 408, 'request_timeout');
    assert.equal(response.headers.connection, 'close');
    const line = gateway
      .logs()
      .find((entry) => entry.error_code === 'request_timeout' && entry.path === '/v1/chat/completions');
    assert.ok(line, 'logged as a request');
  });

  test('a body that trickles within the idle limit is read', TIMEOUT, async () => {
    const body = JSON.stringify({ model: 'm', messages: [MESSAGE] });
    const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${API_KEY}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const response = await rawExchange(gateway.port, [head, body.slice(0, 10), body.slice(10, 20), body.slice(20)], {
      pauseMs: 150,
    });
    assert.equal(response.status, 200, response.raw.slice(0, 300));
  });

  test('oversized headers: 431 headers_too_large; unparsable HTTP: 400 validation_failed', TIMEOUT, async () => {
    expectRawError(
      await rawExchange(gateway.port, [`GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]),
      431,
      'headers_too_large',
    );
    expectRawError(await rawExchange(gateway.port, ['HELLO THERE\r\n\r\n']), 400, 'validation_failed');
    expectRawError(
      await rawExchange(gateway.port, ['POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n']),
      400,
      'validation_failed',
    );
    expectRawError(
      await rawExchange(gateway.port, ['GET /v1/models HTTP/1.1\r\nHo st: x\r\n\r\n']),
      400,
      'validation_failed',
    );
  });

  test(
    'more messages than http.max_messages, or n above http.max_choices: 400 naming the parameter',
    TIMEOUT,
    async () => {
      await expectError(await post({ model: 'm', messages: [MESSAGE, MESSAGE, MESSAGE, MESSAGE] }), {
        status: 400,
        code: 'validation_failed',
        type: 'invalid_request_error',
        param: 'messages',
      });
      await expectError(await post({ model: 'm', messages: [MESSAGE], n: 3 }), {
        status: 400,
        code: 'validation_failed',
        type: 'invalid_request_error',
        param: 'n',
      });
      const atCap = await post({ model: 'm', messages: [MESSAGE, MESSAGE, MESSAGE], n: 2 });
      assert.equal(atCap.status, 200);
      await atCap.arrayBuffer();
    },
  );

  test('prototype-poisoning keys are refused with 400; the same words inside strings are fine', TIMEOUT, async () => {
    node.resetStats();
    const poisoned = [
      `{"model": "m", "messages": [{"role": "user", "content": "hi"}], "__proto__": {"admin": true}}`,
      `{"model": "m", "messages": [{"role": "user", "content": "hi", "__proto__": {"x": 1}}]}`,
      `{"model": "m", "messages": [{"role": "user", "content": "hi"}], "\\u005f_proto__": {"admin": true}}`,
      `{"model": "m", "messages": [{"role": "user", "content": "hi"}], "extra": {"constructor": {"prototype": {"admin": true}}}}`,
    ];
    for (const body of poisoned) {
      const error = await expectError(await post(body), {
        status: 400,
        code: 'validation_failed',
        type: 'invalid_request_error',
        param: null,
      });
      assert.match(error.error.message, /forbidden key/);
    }
    assert.equal(node.stats().requests, 0);
    assert.equal(({} as Record<string, unknown>).admin, undefined, 'Object.prototype untouched');
    const clean = await post({
      model: 'm',
      messages: [{ role: 'user', content: 'what is __proto__ and constructor.prototype?' }],
      constructor: 'fine',
    });
    assert.equal(clean.status, 200);
    await clean.arrayBuffer();
    const admin = await fetch(`${new URL(gateway.baseUrl).origin}/admin/v1/nodes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      body: '{"id": "x", "__proto__": {"admin": true}}',
    });
    await expectError(admin, { status: 400, code: 'validation_failed', type: 'invalid_request_error' });
  });

  test('connections above http.max_connections are dropped at accept and counted', TIMEOUT, async () => {
    const sockets: Socket[] = [];
    try {
      for (let index = 0; index < 4; index++) {
        const socket = connect(gateway.port, '127.0.0.1');
        await new Promise((resolve) => socket.once('connect', resolve));
        sockets.push(socket);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      const extra = connect(gateway.port, '127.0.0.1');
      sockets.push(extra);
      const closed = await new Promise<boolean>((resolve) => {
        extra.on('error', () => undefined);
        extra.once('close', () => resolve(true));
        setTimeout(() => resolve(false), 2000);
      });
      assert.ok(closed, 'the fifth connection is closed by the server');
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const metrics = await fetch(`${new URL(gateway.baseUrl).origin}/metrics`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    // At least the fifth socket (keep-alive sockets of earlier fetches may take slots too).
    const dropped = Number(/^switchyard_connections_dropped_total (\d+)$/m.exec(await metrics.text())?.[1]);
    assert.ok(dropped >= 1, `dropped ${dropped}`);
  });
});
