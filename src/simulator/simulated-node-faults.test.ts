import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_FAILURE_BODY } from './fault-injector.js';
import { SimulatedNode } from './simulated-node.js';
import { SimulatorClient } from '../../test/support/simulator-client.js';
import { waitFor } from '../../test/support/wait-for.js';

const TIMEOUT = { timeout: 5000 };
const BODY = { model: 'm', messages: [{ role: 'user', content: 'Is the bridge open?' }] };

async function statusOrError(client: SimulatorClient): Promise<number | 'error'> {
  try {
    return (await client.post('/chat/completions', BODY)).status;
  } catch {
    return 'error';
  }
}

test('failFirst answers N failures with status and body, then succeeds', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { faults: { failFirst: { count: 2, status: 503 } } });
  for (let attempt = 0; attempt < 2; attempt++) {
    const response = await client.post('/chat/completions', BODY);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(JSON.parse(response.text), DEFAULT_FAILURE_BODY);
    assert.match(response.headers.get('x-request-id') ?? '', /^sim-\d+$/);
  }
  assert.equal((await client.post('/chat/completions', BODY)).status, 200);

  // setFaults restarts the count; custom body and headers are sent as given.
  const body = { error: { message: 'slow down', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } };
  client.node.setFaults({ failFirst: { count: 1, status: 429, body, headers: { 'retry-after': '1' } } });
  const limited = await client.post('/chat/completions', BODY);
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '1');
  assert.deepEqual(JSON.parse(limited.text), body);
  assert.equal((await client.post('/chat/completions', BODY)).status, 200);
});

test('a string failure body is sent verbatim as text/plain', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, {
    faults: { failFirst: { count: 1, status: 502, body: '<html>Bad Gateway</html>' } },
  });
  const response = await client.post('/chat/completions', BODY);
  assert.equal(response.status, 502);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal(response.text, '<html>Bad Gateway</html>');
});

test('failRatio and resetRatio are deterministic for a seed', TIMEOUT, async (t) => {
  const faults = { failRatio: { ratio: 0.3, status: 500 }, resetRatio: 0.2 };
  const run = async (seed: number): Promise<Array<number | 'error'>> => {
    const client = await SimulatorClient.start(t, { faults, seed });
    const outcomes: Array<number | 'error'> = [];
    for (let index = 0; index < 30; index++) outcomes.push(await statusOrError(client));
    return outcomes;
  };
  const first = await run(7);
  assert.deepEqual(await run(7), first);
  assert.ok(first.includes(200) && first.includes(500) && first.includes('error'), first.join(' '));
  assert.notDeepEqual(await run(8), first);
});

test('resetFirst destroys the connection without an answer, then requests succeed', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { faults: { resetFirst: 2 } });
  await assert.rejects(client.post('/chat/completions', BODY));
  await assert.rejects(client.post('/chat/completions', BODY));
  assert.equal((await client.post('/chat/completions', BODY)).status, 200);
  assert.equal(client.node.stats().requests, 3);
});

test('resetFirst and failFirst count from the same request index', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { faults: { resetFirst: 1, failFirst: { count: 2, status: 500 } } });
  assert.deepEqual(
    [await statusOrError(client), await statusOrError(client), await statusOrError(client)],
    ['error', 500, 200],
  );
});

test('cutAfterChunks ends the stream after K events without [DONE]', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { faults: { cutAfterChunks: 3 } });
  const streamed = await client.chatStream({ ...BODY, stream_options: { include_usage: true } });
  assert.equal(streamed.status, 200);
  assert.equal(streamed.data.length, 3);
  assert.ok(!streamed.data.includes('[DONE]'));
  assert.notEqual(streamed.failure, undefined, 'the client sees the body fail');

  client.node.setFaults({ cutAfterChunks: 0 });
  const empty = await client.chatStream(BODY);
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.data, []);

  client.node.setFaults({ cutAfterChunks: 1000 });
  const whole = await client.chatStream(BODY);
  assert.equal(whole.data.at(-1), '[DONE]');
  assert.equal(whole.failure, undefined);
});

test('cutAfterChunks also cuts paced streams', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { tokensPerSecond: 200, faults: { cutAfterChunks: 5 } });
  const streamed = await client.chatStream(BODY);
  assert.equal(streamed.data.length, 5);
  assert.notEqual(streamed.failure, undefined);
});

test('firstByteMs plus firstByteDelayMs delay the first byte, errors included', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { firstByteMs: 50, faults: { firstByteDelayMs: 100 } });
  let started = performance.now();
  await client.post('/chat/completions', BODY);
  assert.ok(performance.now() - started >= 140, 'JSON answer delayed');

  client.node.setFaults({ firstByteDelayMs: 100, failFirst: { count: 1, status: 500 } });
  started = performance.now();
  assert.equal((await client.post('/chat/completions', BODY)).status, 500);
  assert.ok(performance.now() - started >= 140, 'error delayed');

  started = performance.now();
  const response = await fetch(client.url('/chat/completions'), {
    method: 'POST',
    body: JSON.stringify({ ...BODY, stream: true }),
  });
  assert.ok(performance.now() - started >= 140, 'stream headers delayed');
  await response.text();
});

test('maxInFlight counts concurrent requests; inFlight returns to 0', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { firstByteMs: 200 });
  const requests = Array.from({ length: 6 }, () => client.post('/chat/completions', BODY));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(client.node.stats().inFlight, 6);
  const responses = await Promise.all(requests);
  assert.ok(responses.every((response) => response.status === 200));
  await waitFor(() => client.node.stats().inFlight === 0, 1000, { everyMs: 5 });
  assert.deepEqual(
    { ...client.node.stats(), lastRequest: undefined },
    {
      requests: 6,
      inFlight: 0,
      maxInFlight: 6,
      running: 0,
      waiting: 0,
      lastRequest: undefined,
      lastPrefill: { promptTokens: 10, cachedTokens: 0, firstTokenDelayMs: 200 },
    },
  );
});

test('setFaults rejects invalid settings', () => {
  const node = new SimulatedNode();
  assert.throws(() => node.setFaults({ failRatio: { ratio: 2, status: 500 } }), /failRatio\.ratio/);
  assert.throws(() => node.setFaults({ failFirst: { count: -1, status: 500 } }), /failFirst\.count/);
  assert.throws(() => node.setFaults({ failFirst: { count: 1, status: 99 } }), /failFirst\.status/);
  assert.throws(() => node.setFaults({ resetFirst: 1.5 }), /resetFirst/);
  assert.doesNotThrow(() => node.setFaults({}));
});
