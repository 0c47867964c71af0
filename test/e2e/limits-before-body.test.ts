import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { expectRawError, readRawResponse, type RawResponse } from '../support/raw-http.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { postChat } from '../support/post-chat.js';

const KEY_A = 'sk-body-budget-a-0123456789';
const KEY_B = 'sk-body-budget-b-0123456789';
const KEY_C = 'sk-body-budget-c-0123456789';
const ONE_RPM = 'sk-body-budget-rpm-0123456789';
const TIMEOUT = { timeout: 30_000 };
/** What one held request declares: under the body limit, two of them over a key's budget. */
const HELD_BYTES = 60_000;
/** What a held request has sent of it: budgets count bytes received, never bytes declared. */
const SENT_BYTES = HELD_BYTES - 1_000;

/** A chat request body of exactly `size` bytes (the user message padded). */
function bodyOfSize(size: number): Buffer {
  const empty = JSON.stringify({ model: 'm', max_tokens: 3, messages: [{ role: 'user', content: '' }] });
  return Buffer.from(empty.replace('"content":""', `"content":"${'x'.repeat(size - Buffer.byteLength(empty))}"`));
}

/** A request whose head and the first `sent` body bytes are on the wire; the rest is held back. */
interface HeldRequest {
  readonly socket: Socket;
  /** The first response, once complete (by Content-Length) or the connection closed. */
  readonly response: Promise<RawResponse>;
  /** Sends the rest of the body. */
  finish(): void;
}

function holdRequest(
  port: number,
  key: string,
  body: Buffer,
  sent: number,
  declared = body.length,
  forwardedFor?: string,
): HeldRequest {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const response = readRawResponse(socket);
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\n` +
      (forwardedFor === undefined ? '' : `x-forwarded-for: ${forwardedFor}\r\n`) +
      `content-length: ${declared}\r\n\r\n`,
  );
  socket.write(body.subarray(0, sent));
  return { socket, response, finish: () => socket.write(body.subarray(sent)) };
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = await Promise.race([promise.then(() => true), timeout]);
  clearTimeout(timer);
  return settled;
}

describe('authentication, request-rate limits and body budgets come before the body', () => {
  let gateway: TestGateway;
  const held: Socket[] = [];

  before(async () => {
    gateway = await startTestGateway(`
http: { body_limit_bytes: 65536, max_body_bytes_in_flight_per_key: 100000, max_body_bytes_in_flight: 150000, body_idle_timeout_ms: 10000 }
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
keys:
  - { key: ${KEY_A} }
  - { key: ${KEY_B} }
  - { key: ${KEY_C} }
  - { key: ${ONE_RPM}, limits: { rpm: 1 } }
`);
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await gateway.close();
  });

  const chat = (key: string, size = 200) => postChat(gateway.baseUrl, key, bodyOfSize(size));

  test('an invalid key declaring a 1 GiB body is answered 401 at once, and the body is not read', TIMEOUT, async () => {
    const request = holdRequest(gateway.port, 'sk-not-a-key-0123456789', bodyOfSize(1_000), 1_000, 1024 ** 3);
    held.push(request.socket);
    assert.ok(await settlesWithin(request.response, 5_000), 'the 401 arrives while the body is still unsent');
    const refused = await request.response;
    expectRawError(refused, 401, 'invalid_api_key');
    // More than http.max_drain_bytes declared: not worth reading, the connection closes.
    assert.equal(refused.headers.connection, 'close');
    const closed = request.socket.closed
      ? Promise.resolve()
      : new Promise((resolve) => request.socket.once('close', resolve));
    assert.ok(await settlesWithin(closed, 5_000), 'the gateway closes the connection');
  });

  test('a key over its rpm gets 429 before its body is read', TIMEOUT, async () => {
    const first = await chat(ONE_RPM);
    assert.equal(first.status, 200);
    await first.text();
    const request = holdRequest(gateway.port, ONE_RPM, bodyOfSize(HELD_BYTES), 1_000);
    held.push(request.socket);
    assert.ok(
      await settlesWithin(request.response, 5_000),
      'the 429 arrives while the body is still unsent (not a 408 after the body time-out)',
    );
    const refused = await request.response;
    expectRawError(refused, 429, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) >= 1, 'Retry-After');
    request.socket.destroy();
  });

  test(
    "the per-key body budget gives 429 with Retry-After while another key still gets through; it is released when a body's client leaves",
    TIMEOUT,
    async () => {
      const first = holdRequest(gateway.port, KEY_A, bodyOfSize(HELD_BYTES), SENT_BYTES);
      held.push(first.socket);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = holdRequest(gateway.port, KEY_A, bodyOfSize(HELD_BYTES), SENT_BYTES);
      held.push(second.socket);
      assert.ok(
        await settlesWithin(second.response, 5_000),
        "the second body over the key's budget is refused at once",
      );
      const refused = await second.response;
      expectRawError(refused, 429, 'rate_limited');
      assert.equal(refused.headers['retry-after'], '1');
      second.socket.destroy();

      const other = await chat(KEY_B, HELD_BYTES);
      assert.equal(other.status, 200, 'another key is not held up by the first one');
      await other.text();

      first.socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const again = await chat(KEY_A, HELD_BYTES);
      assert.equal(again.status, 200, 'the abandoned body gave its bytes back');
      await again.text();
    },
  );

  test(
    "a chunked body takes the key's budget as it arrives: over it, 429 while the body is still coming",
    TIMEOUT,
    async () => {
      const first = holdRequest(gateway.port, KEY_A, bodyOfSize(HELD_BYTES), SENT_BYTES);
      held.push(first.socket);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const socket = connect(gateway.port, '127.0.0.1');
      held.push(socket);
      socket.on('error', () => undefined);
      const answered = readRawResponse(socket);
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${KEY_A}\r\ntransfer-encoding: chunked\r\n\r\n`,
      );
      const part = bodyOfSize(HELD_BYTES).subarray(0, 50_000);
      socket.write(`${part.length.toString(16)}\r\n`);
      socket.write(part);
      socket.write('\r\n');
      assert.ok(await settlesWithin(answered, 5_000), 'refused before the body ends');
      const refused = await answered;
      expectRawError(refused, 429, 'rate_limited');
      assert.equal(refused.headers['retry-after'], '1');
      socket.destroy();
      first.socket.destroy();
    },
  );

  test(
    'the total body budget gives 503 server_busy with Retry-After; a finished body frees its share',
    TIMEOUT,
    async () => {
      const a = holdRequest(gateway.port, KEY_A, bodyOfSize(HELD_BYTES), SENT_BYTES);
      const b = holdRequest(gateway.port, KEY_B, bodyOfSize(HELD_BYTES), SENT_BYTES);
      held.push(a.socket, b.socket);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const busy = await chat(KEY_C, HELD_BYTES);
      const retryAfter = busy.headers.get('retry-after');
      assert.equal(busy.status, 503);
      const body = (await busy.json()) as { error: { code: string; type: string } };
      assert.equal(body.error.code, 'server_busy');
      assert.equal(body.error.type, 'service_unavailable');
      assert.equal(retryAfter, '1');

      a.finish();
      const answered = await a.response;
      assert.equal(
        answered.status,
        200,
        `the held request completes once its body does (raw: ${answered.raw.slice(0, 200)})`,
      );
      const admitted = await chat(KEY_C, HELD_BYTES);
      assert.equal(admitted.status, 200, 'the read body gave its bytes back');
      await admitted.text();
      b.socket.destroy();
    },
  );
});

// Issue 28 finding 6: 16 keys declaring 4 MiB bodies and sending 2.7 KB in all made 79 of 80
// of another key's requests get 503 for 40 s. Bodies take budget by bytes received, and one
// account and one client address may hold only their share.
describe('body budgets count bytes received, per key, account and client address', () => {
  const KEYS = Array.from(
    { length: 16 },
    (_, index) => `sk-declared-only-${String(index).padStart(2, '0')}-0123456789`,
  );
  const VICTIM = 'sk-body-budget-victim-0123456789';
  const SAME_ACCOUNT_1 = 'sk-body-budget-acme-1-0123456789';
  const SAME_ACCOUNT_2 = 'sk-body-budget-acme-2-0123456789';
  let gateway: TestGateway;
  const held: Socket[] = [];

  before(async () => {
    gateway = await startTestGateway(`
trusted_proxies: [127.0.0.1]
http:
  body_limit_bytes: 65536
  max_body_bytes_in_flight_per_key: 100000
  max_body_bytes_in_flight_per_account: 100000
  max_body_bytes_in_flight_per_ip: 100000
  max_body_bytes_in_flight: 150000
  body_idle_timeout_ms: 10000
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
accounts: [{ id: acme, balance: 0 }]
keys:
${KEYS.map((key) => `  - { key: ${key} }`).join('\n')}
  - { key: ${VICTIM} }
  - { key: ${SAME_ACCOUNT_1}, account: acme }
  - { key: ${SAME_ACCOUNT_2}, account: acme }
`);
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await gateway.close();
  });

  test('bodies that only declare their length take nothing from the gateway’s budget', TIMEOUT, async () => {
    // 16 keys each declare the body limit (1 MiB in all, 7 times the total budget) and send 100 bytes.
    const requests = KEYS.map((key, index) =>
      holdRequest(gateway.port, key, bodyOfSize(65_536), 100, 65_536, `10.6.0.${index + 1}`),
    );
    held.push(...requests.map((request) => request.socket));
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let round = 0; round < 5; round++) {
      const victim = await postChat(gateway.baseUrl, VICTIM, bodyOfSize(HELD_BYTES), {
        headers: { 'x-forwarded-for': '10.6.1.1' },
      });
      assert.equal(victim.status, 200, `another key's request ${round} gets through (${await victim.clone().text()})`);
      await victim.text();
    }
    for (const request of requests) request.socket.destroy();
  });

  test('one client address holds at most its share, whatever keys it uses', TIMEOUT, async () => {
    const first = holdRequest(
      gateway.port,
      KEYS[0] as string,
      bodyOfSize(HELD_BYTES),
      SENT_BYTES,
      undefined,
      '10.6.2.1',
    );
    held.push(first.socket);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = holdRequest(
      gateway.port,
      KEYS[1] as string,
      bodyOfSize(HELD_BYTES),
      SENT_BYTES,
      undefined,
      '10.6.2.1',
    );
    held.push(second.socket);
    assert.ok(await settlesWithin(second.response, 5_000), 'refused while its body is still coming');
    const refused = await second.response;
    expectRawError(refused, 429, 'rate_limited');
    assert.equal(refused.headers['retry-after'], '1');
    const elsewhere = await postChat(gateway.baseUrl, KEYS[2] as string, bodyOfSize(HELD_BYTES), {
      headers: { 'x-forwarded-for': '10.6.2.2' },
    });
    assert.equal(elsewhere.status, 200, 'another address is not held up');
    await elsewhere.text();
    first.socket.destroy();
    second.socket.destroy();
  });

  test('one account holds at most its share, whatever keys and addresses it uses', TIMEOUT, async () => {
    const first = holdRequest(gateway.port, SAME_ACCOUNT_1, bodyOfSize(HELD_BYTES), SENT_BYTES, undefined, '10.6.3.1');
    held.push(first.socket);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = holdRequest(gateway.port, SAME_ACCOUNT_2, bodyOfSize(HELD_BYTES), SENT_BYTES, undefined, '10.6.3.2');
    held.push(second.socket);
    assert.ok(await settlesWithin(second.response, 5_000), 'refused while its body is still coming');
    expectRawError(await second.response, 429, 'rate_limited');
    first.socket.destroy();
    second.socket.destroy();
  });
});
