import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { expectError } from '../support/http-assertions.js';
import { chatBody } from '../support/post-chat.js';
import { sharedRedisOrSkip } from '../support/redis-servers.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 28 finding 5: wrong API keys, admin keys and console sign-ins are limited per client
// address (limits.auth_failures_per_minute) with 429 and Retry-After; successes are never
// counted, other addresses are not touched, and with Redis the count is shared by instances.

const API_KEY = 'sk-failed-auth-limit-0123456789';
const ADMIN_KEY = 'admin-failed-auth-limit-0123456789';
const LIMIT = 5;

const yaml = (extra = '') => `
${extra}
admin_key: ${ADMIN_KEY}
trusted_proxies: [127.0.0.1]
limits: { auth_failures_per_minute: ${LIMIT} }
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
keys: [{ key: ${API_KEY} }]
`;

/** A client address of its own per call (behind the trusted proxy at 127.0.0.1), unique across runs. */
const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

function chat(gateway: TestGateway, ip: string, key: string): Promise<Response> {
  return fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify(chatBody('m', { max_tokens: 3 })),
    signal: AbortSignal.timeout(5_000),
  });
}

async function statuses(count: number, send: () => Promise<Response>): Promise<number[]> {
  const seen: number[] = [];
  for (let index = 0; index < count; index++) {
    const response = await send();
    await response.arrayBuffer();
    seen.push(response.status);
  }
  return seen;
}

async function expectLimited(response: Response): Promise<void> {
  const retryAfter = Number(response.headers.get('retry-after'));
  await expectError(response, { status: 429, code: 'rate_limited', type: 'rate_limit_error' });
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
}

describe('failed authentication is limited per client address', () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway(yaml());
  });
  after(() => gateway?.close());

  test('wrong API keys: 401 up to the limit, then 429 with Retry-After, for a right key too; other addresses are untouched', async () => {
    const attacker = address();
    const guesses = await statuses(LIMIT, () => chat(gateway, attacker, `sk-guess-${randomInt(1e9)}-0123456789`));
    assert.deepEqual(guesses, Array(LIMIT).fill(401));
    await expectLimited(await chat(gateway, attacker, 'sk-guess-one-more-0123456789'));
    // A right guess from the locked address is refused too: otherwise the limit would not slow guessing.
    await expectLimited(await chat(gateway, attacker, API_KEY));
    const neighbour = await chat(gateway, address(), API_KEY);
    assert.equal(neighbour.status, 200, 'another address is not limited');
    await neighbour.arrayBuffer();
  });

  test('successes are never counted: many right keys from one address all pass', async () => {
    const office = address();
    assert.deepEqual(await statuses(LIMIT * 3, () => chat(gateway, office, API_KEY)), Array(LIMIT * 3).fill(200));
    // A request without any key is no guess either.
    const anonymous = await statuses(LIMIT * 2, () =>
      fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': office },
        body: '{}',
      }),
    );
    assert.deepEqual(anonymous, Array(LIMIT * 2).fill(401));
    assert.equal((await chat(gateway, office, API_KEY)).status, 200);
  });

  test('wrong admin keys on /admin/v1 and /metrics share the limit', async () => {
    const attacker = address();
    const guess = (path: string) =>
      fetch(`${gateway.origin}${path}`, {
        headers: { authorization: `Bearer admin-guess-${randomInt(1e9)}-0123456789`, 'x-forwarded-for': attacker },
      });
    const seen = [
      ...(await statuses(LIMIT - 2, () => guess('/admin/v1/accounts'))),
      ...(await statuses(2, () => guess('/metrics'))),
    ];
    assert.deepEqual(seen, Array(LIMIT).fill(401));
    await expectLimited(await guess('/admin/v1/keys'));
    await expectLimited(
      await fetch(`${gateway.origin}/admin/v1/accounts`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-forwarded-for': attacker },
      }),
    );
    const operator = await fetch(`${gateway.origin}/admin/v1/accounts`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-forwarded-for': address() },
    });
    assert.equal(operator.status, 200);
  });

  test('wrong console sign-ins are limited the same way', async () => {
    const attacker = address();
    const signIn = (key: string) =>
      fetch(`${gateway.origin}/console/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': attacker },
        body: JSON.stringify({ admin_key: key }),
      });
    assert.deepEqual(
      await statuses(LIMIT, () => signIn(`admin-guess-${randomInt(1e9)}-0123456789`)),
      Array(LIMIT).fill(401),
    );
    await expectLimited(await signIn('admin-guess-last-0123456789'));
    await expectLimited(await signIn(ADMIN_KEY));
  });
});

describe('failed authentication with Redis', () => {
  test('two instances count one address’s failures together', async (context) => {
    const redis = await sharedRedisOrSkip('the shared failed-authentication limit');
    if (redis === undefined) return context.skip('Redis missing');
    const first = await startTestGateway(yaml(`redis: ${redis}`));
    const second = await startTestGateway(yaml(`redis: ${redis}`));
    try {
      const attacker = address();
      const seen: number[] = [];
      for (let index = 0; index < LIMIT; index++) {
        const response = await chat(index % 2 === 0 ? first : second, attacker, `sk-guess-${index}-0123456789abc`);
        await response.arrayBuffer();
        seen.push(response.status);
      }
      assert.deepEqual(seen, Array(LIMIT).fill(401));
      await expectLimited(await chat(first, attacker, 'sk-guess-on-first-0123456789'));
      await expectLimited(await chat(second, attacker, 'sk-guess-on-second-0123456789'));
    } finally {
      await first.close();
      await second.close();
    }
  });
});
