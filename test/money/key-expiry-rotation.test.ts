import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { expectError } from '../support/http-assertions.js';
import { accountWithKey, AdminClient, ADMIN_KEY, openaiClient, rejectsWith, usdToNano } from '../support/money.js';
import { chatBody } from '../support/post-chat.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// Issue 32 item 4 (PRODUCT decision 27): keys that expire (401 invalid_api_key saying so, on
// every door, checked against the clock with no store call) and rotate (a new secret once;
// the old one works until the grace ends, then 401; both book to the same key id).

const FILE_KEY = 'sk-file-key-expired-0123456789';
const FILE_KEY_LIVE = 'sk-file-key-live-0123456789ab';
const AUTH_FAILURES_PER_MINUTE = 3;

const yaml = `
admin_key: ${ADMIN_KEY}
trusted_proxies: [127.0.0.1]
limits: { auth_failures_per_minute: ${AUTH_FAILURES_PER_MINUTE}, key: { rpm: 100000 }, account: { rpm: 100000 }, ip: { rpm: 100000 } }
usage: { flush_interval_ms: 20 }
nodes: [{ id: sim, provider: simulated, max_concurrency: 256 }]
models:
  - { id: paid, pricing: { input: 0.5, output: 2 }, routes: [{ node: sim }] }
accounts: [{ id: file-account, balance: 100 }]
keys:
  - { key: ${FILE_KEY}, account: file-account, expires_at: "2020-01-01T00:00:00Z" }
  - { key: ${FILE_KEY_LIVE}, account: file-account, expires_at: "2999-01-01T00:00:00+02:00" }
`;

/** A client address of its own (behind the trusted proxy), so failed-attempt counts do not mix. */
const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** Every door, and the token-counting endpoints, with the key sent as that door's clients send it. */
const DOORS = [
  { door: 'chat', path: '/chat/completions', body: chatBody('paid', { max_tokens: 4 }), header: 'authorization' },
  {
    door: 'messages',
    path: '/messages',
    body: { model: 'paid', max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] },
    header: 'x-api-key',
  },
  {
    door: 'messages',
    path: '/messages/count_tokens',
    body: { model: 'paid', messages: [{ role: 'user', content: 'hi' }] },
    header: 'x-api-key',
  },
  {
    door: 'responses',
    path: '/responses',
    body: { model: 'paid', input: 'hi', max_output_tokens: 16 },
    header: 'authorization',
  },
  { door: 'responses', path: '/responses/input_tokens', body: { model: 'paid', input: 'hi' }, header: 'authorization' },
] as const;

function send(gateway: TestGateway, door: (typeof DOORS)[number], secret: string, ip = address()): Promise<Response> {
  return fetch(`${gateway.baseUrl}${door.path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': ip,
      'anthropic-version': '2023-06-01',
      ...(door.header === 'x-api-key' ? { 'x-api-key': secret } : { authorization: `Bearer ${secret}` }),
    },
    body: JSON.stringify(door.body),
    signal: AbortSignal.timeout(10_000),
  });
}

/** Checks a 401 in the door's own error shape and returns its message. */
async function refusedMessage(response: Response, door: (typeof DOORS)[number]['door']): Promise<string> {
  if (door === 'messages') {
    const text = await response.text();
    assert.equal(response.status, 401, text);
    const body = JSON.parse(text) as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error', text);
    assert.equal(body.error.type, 'authentication_error', text);
    return body.error.message;
  }
  const body = await expectError(response, { status: 401, code: 'invalid_api_key', type: 'authentication_error' });
  return body.error.message;
}

describe('keys that expire', () => {
  let gateway: TestGateway;
  let admin: AdminClient;
  before(async () => {
    gateway = await startTestGateway(yaml);
    admin = new AdminClient(gateway.baseUrl);
  });
  after(() => gateway.close());

  test('an expired key is refused on every door and counting endpoint, in its shape, saying it expired and when', async () => {
    const expired = await accountWithKey(admin, { balance: 10 }, { expires_at: '2021-06-01T12:00:00+02:00' });
    const shown = await admin.ok('GET', `/keys/${expired.keyId}`);
    assert.equal(shown.expires_at, '2021-06-01T10:00:00.000Z', 'the API shows the expiry in UTC');
    for (const secret of [expired.secret, FILE_KEY]) {
      for (const door of DOORS) {
        const message = await refusedMessage(await send(gateway, door, secret), door.door);
        assert.match(message, /expired at \d{4}-\d{2}-\d{2}T/, `${door.path}: ${message}`);
      }
    }
    const message = await refusedMessage(await send(gateway, DOORS[0], expired.secret), 'chat');
    assert.match(message, /2021-06-01T10:00:00\.000Z/);
    // The official client sees the spec's code and class.
    await rejectsWith(
      openaiClient(gateway.baseUrl, expired.secret).chat.completions.create({
        model: 'paid',
        messages: [{ role: 'user', content: 'hi' }],
      }),
      401,
      'invalid_api_key',
      'authentication_error',
    );
    const anthropic = new Anthropic({
      baseURL: gateway.origin,
      apiKey: FILE_KEY,
      maxRetries: 0,
    });
    await assert.rejects(
      anthropic.messages.create({ model: 'paid', max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] }),
      (error: unknown) =>
        error instanceof Anthropic.AuthenticationError && /expired/.test(String((error as Error).message)),
    );
    // A file key whose expiry is in the future works (the zone in the file is honoured).
    assert.equal((await send(gateway, DOORS[0], FILE_KEY_LIVE)).status, 200);
  });

  test('a key expiring while the gateway runs is refused from then on', async () => {
    const expiresAt = Date.now() + 1_500;
    const key = await accountWithKey(admin, { balance: 10 }, { expires_at: new Date(expiresAt).toISOString() });
    assert.equal((await send(gateway, DOORS[0], key.secret)).status, 200, 'accepted before its expiry');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 20)));
    for (const door of DOORS) {
      assert.match(await refusedMessage(await send(gateway, door, key.secret), door.door), /expired/);
    }
    // An operator extends it: accepted again at once; `null` means never.
    await admin.ok('PATCH', `/keys/${key.keyId}`, { expires_at: null });
    assert.equal((await send(gateway, DOORS[0], key.secret)).status, 200, 'accepted once the expiry is lifted');
  });

  test('an expired key is not counted as a failed attempt of its address', async () => {
    const ip = address();
    for (let attempt = 0; attempt < AUTH_FAILURES_PER_MINUTE + 3; attempt++) {
      assert.equal((await send(gateway, DOORS[0], FILE_KEY, ip)).status, 401, `attempt ${attempt}`);
    }
    assert.equal((await send(gateway, DOORS[0], FILE_KEY_LIVE, ip)).status, 200, 'the address is not locked out');
    // A wrong key still is.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < AUTH_FAILURES_PER_MINUTE + 1; attempt++) {
      statuses.push((await send(gateway, DOORS[0], 'sk-wrong-key-0123456789abcdef', ip)).status);
    }
    assert.equal(statuses.at(-1), 429, `wrong keys are limited: ${statuses.join(',')}`);
  });

  test('a bad expires_at is refused by the admin API', async () => {
    const account = await admin.ok('POST', '/accounts', { id: `bad-expiry-${Date.now()}` });
    const answer = await admin.call('POST', '/keys', { account: account.id, expires_at: '2027-01-01T00:00:00' });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal(answer.body.error.param, 'expires_at');
  });
});

describe('keys that rotate', () => {
  let gateway: TestGateway;
  let admin: AdminClient;
  before(async () => {
    gateway = await startTestGateway(yaml);
    admin = new AdminClient(gateway.baseUrl);
  });
  after(() => gateway.close());

  test('a rotation under load fails no request; the old secret is refused after the grace; both book to one key', async () => {
    const key = await accountWithKey(admin, { balance: 50 });
    const WORKERS = 8;
    const REQUESTS_PER_WORKER = 40;
    const GRACE_SECONDS = 2;
    let secret = key.secret;
    let rotated: { key: string; previous_expires_at: string } | undefined;
    const failures: string[] = [];
    const sentWith = { old: 0, new: 0 };
    let sent = 0;
    let rotating = false;
    const worker = async () => {
      for (let index = 0; index < REQUESTS_PER_WORKER; index++) {
        const using = secret;
        const response = await send(gateway, DOORS[index % 2 === 0 ? 0 : 3], using);
        const text = await response.text();
        sent++;
        if (response.status !== 200) failures.push(`${response.status} ${text}`);
        else if (using === key.secret) sentWith.old++;
        else sentWith.new++;
        // Mid-load, one worker rotates; the clients switch to the new secret a little later.
        if (sent >= (WORKERS * REQUESTS_PER_WORKER) / 3 && !rotating) {
          rotating = true;
          rotated = await admin.ok('POST', `/keys/${key.keyId}/rotate`, { grace_seconds: GRACE_SECONDS });
          setTimeout(() => (secret = rotated?.key ?? secret), 200);
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    assert.deepEqual(failures, [], 'no request failed');
    assert.ok(rotated !== undefined, 'rotated mid-load');
    assert.ok(sentWith.old > 0 && sentWith.new > 0, `both secrets served: ${JSON.stringify(sentWith)}`);
    assert.match(rotated.key, /^sk-sy-/);
    assert.notEqual(rotated.key, key.secret);

    // The old secret is refused once the grace is over, saying it was rotated.
    const graceEnd = Date.parse(rotated.previous_expires_at);
    // Served while the grace lasts, refused after: which one depends on how fast the machine got here.
    const beforeEnd = Date.now() < graceEnd;
    const late = await send(gateway, DOORS[0], key.secret);
    await late.text();
    if (beforeEnd)
      assert.ok(late.status === 200 || late.status === 401, `old secret near the grace's end: ${late.status}`);
    else assert.equal(late.status, 401);
    const servedLate = late.status === 200 ? 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, graceEnd - Date.now() + 20)));
    for (const door of DOORS) {
      const message = await refusedMessage(await send(gateway, door, key.secret), door.door);
      assert.match(message, /rotated/, `${door.path}: ${message}`);
    }
    assert.equal((await send(gateway, DOORS[0], rotated.key)).status, 200, 'the new secret goes on');

    // Every request of both secrets is one key's: its usage rows, its spend, its account.
    const total = sentWith.old + sentWith.new + servedLate + 1;
    let booked = 0;
    await waitFor(async () => {
      booked = (await admin.usage({ key: key.keyId, limit: '0' })).totals.requests;
      return booked === total;
    }, 30_000).catch(() => assert.fail(`usage rows of the key: ${booked}, requests served: ${total}`));
    const usage = await admin.usage({ key: key.keyId, limit: '0' });
    assert.equal(usage.totals.requests, total);
    assert.equal(await admin.spentNano(key.keyId), usage.totals.cost_nano);
    assert.equal(await admin.balanceNano(key.accountId), usdToNano(50) - usage.totals.cost_nano);
    const shown = await admin.ok('GET', `/keys/${key.keyId}`);
    assert.equal(shown.previous_expires_at, rotated.previous_expires_at);
    assert.equal(shown.key, undefined, 'the secret is shown once only');
  });

  test('a second rotation drops the first old secret; bounds and file keys are refused', async () => {
    const key = await accountWithKey(admin, { balance: 5 });
    const first = await admin.ok('POST', `/keys/${key.keyId}/rotate`, {});
    const graceMs = Date.parse(first.previous_expires_at) - Date.now();
    assert.ok(graceMs > 3_500_000 && graceMs <= 3_600_000, `default grace an hour, got ${graceMs} ms`);
    const second = await admin.ok('POST', `/keys/${key.keyId}/rotate`, { grace_seconds: 60 });
    assert.equal((await send(gateway, DOORS[0], key.secret)).status, 401, 'the first secret is gone');
    assert.equal((await send(gateway, DOORS[0], first.key)).status, 200, 'the second-last is in its grace');
    assert.equal((await send(gateway, DOORS[0], second.key)).status, 200);

    const tooLong = await admin.call('POST', `/keys/${key.keyId}/rotate`, { grace_seconds: 31 * 86_400 });
    assert.equal(tooLong.status, 400, JSON.stringify(tooLong.body));
    const fileKey = (await admin.ok('GET', '/keys?account=file-account')).data[0];
    const refused = await admin.call('POST', `/keys/${fileKey.id}/rotate`, {});
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.match(refused.body.error.message, /configuration file/);
    await admin.ok('POST', `/keys/${key.keyId}/revoke`);
    assert.equal((await admin.call('POST', `/keys/${key.keyId}/rotate`, {})).status, 409);
  });
});
