import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SimulatorClient } from '../../test/support/simulator-client.js';

const TIMEOUT = { timeout: 5000 };
const BODY = { model: 'm', messages: [{ role: 'user', content: 'Hello there.' }] };

test('POST /_simulator/faults sets faults like setFaults; GET returns them', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  const origin = new URL(client.baseUrl).origin;
  const set = await fetch(`${origin}/_simulator/faults`, {
    method: 'POST',
    body: JSON.stringify({ failFirst: { count: 1, status: 500 }, firstByteDelayMs: 0 }),
  });
  assert.equal(set.status, 200);
  assert.deepEqual(await set.json(), { failFirst: { count: 1, status: 500 }, firstByteDelayMs: 0 });
  assert.equal((await client.post('/chat/completions', BODY)).status, 500);
  assert.equal((await client.post('/chat/completions', BODY)).status, 200);

  // Also reachable under the base URL, for callers that only know it.
  const current = await client.get('/_simulator/faults');
  assert.deepEqual(JSON.parse(current.text), { failFirst: { count: 1, status: 500 }, firstByteDelayMs: 0 });

  const invalid = await client.post('/_simulator/faults', { resetRatio: 'often' });
  assert.equal(invalid.status, 400);
  assert.equal((JSON.parse(invalid.text) as { error: { param: string } }).error.param, 'resetRatio');
  assert.equal((await client.post('/_simulator/faults', 'not json')).status, 400);
});

test('GET /_simulator/stats reports traffic with credentials redacted', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  await client.post('/chat/completions', BODY, { authorization: 'Bearer sk-secret', 'x-trace': 'abc' });
  const response = await client.get('/_simulator/stats');
  assert.equal(response.status, 200);
  assert.doesNotMatch(response.text, /sk-secret/);
  const stats = JSON.parse(response.text) as {
    requests: number;
    inFlight: number;
    maxInFlight: number;
    lastRequest: { headers: Record<string, string>; body: unknown; path: string };
  };
  assert.equal(stats.requests, 1);
  assert.equal(stats.inFlight, 0);
  assert.equal(stats.maxInFlight, 1);
  assert.equal(stats.lastRequest.path, '/v1/chat/completions');
  assert.deepEqual(stats.lastRequest.body, BODY);
  assert.equal(stats.lastRequest.headers.authorization, '[redacted]');
  assert.equal(stats.lastRequest.headers['x-trace'], 'abc');
  // In-process stats keep the real header so tests can check what the gateway sent.
  assert.equal(client.node.stats().lastRequest?.headers.authorization, 'Bearer sk-secret');
});

test('POST /_simulator/reset clears faults and stats', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { faults: { failFirst: { count: 5, status: 503 } } });
  assert.equal((await client.post('/chat/completions', BODY)).status, 503);
  const reset = await client.post('/_simulator/reset', {});
  assert.equal(reset.status, 200);
  assert.deepEqual(client.node.stats(), { requests: 0, inFlight: 0, maxInFlight: 0, running: 0, waiting: 0 });
  assert.equal((await client.post('/chat/completions', BODY)).status, 200);
  assert.equal(client.node.stats().requests, 1);
  assert.equal((await client.get('/_simulator/reset')).status, 405);
});

test('resetStats keeps counting from zero; control requests are not counted', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  await client.post('/chat/completions', BODY);
  await client.get('/models');
  await client.get('/_simulator/stats');
  assert.equal(client.node.stats().requests, 1);
  client.node.resetStats();
  assert.deepEqual(client.node.stats(), { requests: 0, inFlight: 0, maxInFlight: 0, running: 0, waiting: 0 });
});

test('baseUrl and close', async () => {
  const { SimulatedNode } = await import('./simulated-node.js');
  const node = new SimulatedNode();
  assert.throws(() => node.baseUrl, /not listening/);
  const baseUrl = await node.listen(0, '127.0.0.1');
  assert.match(baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  assert.equal(node.baseUrl, baseUrl);
  await node.close();
  await node.close();
  await assert.rejects(fetch(`${baseUrl}/models`));
});

test('close destroys in-flight connections', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { firstByteMs: 10_000 });
  const rejected = assert.rejects(client.post('/chat/completions', BODY));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  await client.node.close();
  await rejected;
  assert.ok(performance.now() - started < 1000);
  assert.equal(client.node.stats().inFlight, 0);
});
