import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { LimitSettings } from '../config/gateway-config.js';
import { manualClock } from '../../test/support/limit-store-contract.js';
import { rateLimitError, rateLimitHeaders, retryAfterSeconds, wholeSeconds } from './rate-limit-response.js';
import { RateLimiter, type RateLimitSubject } from './rate-limiter.js';

const NONE = { rpm: undefined, rps: undefined, tpm: undefined };
const silent = pino({ level: 'silent' });

function limiter(settings: Partial<LimitSettings>) {
  const clock = manualClock();
  const instance = new RateLimiter({
    settings: { key: NONE, account: NONE, ip: NONE, ...settings },
    logger: silent,
    clock: clock.read,
  });
  return { limiter: instance, clock };
}

async function allowedOf(instance: RateLimiter, subject: RateLimitSubject, count: number): Promise<number> {
  let allowed = 0;
  for (let index = 0; index < count; index++) if ((await instance.acquire(subject)).allowed) allowed += 1;
  return allowed;
}

test('defaults apply per key, per account and per IP; overrides replace them field by field', async () => {
  const { limiter: instance } = limiter({
    key: { rpm: 5, rps: 100, tpm: undefined },
    ip: { rpm: 7, rps: undefined, tpm: undefined },
  });
  assert.equal(await allowedOf(instance, { keyId: 'k1' }, 10), 5);
  assert.equal(await allowedOf(instance, { keyId: 'k2', keyLimits: { rpm: 2 } }, 10), 2);
  assert.equal(await allowedOf(instance, { ip: '10.0.0.1' }, 10), 7);
  assert.equal(await allowedOf(instance, { accountId: 'a' }, 10), 10, 'no account default: unlimited');
  assert.equal(await allowedOf(instance, { accountId: 'b', accountLimits: { rpm: 3 } }, 10), 3);
  const decision = await instance.acquire({ keyId: 'k3', keyLimits: { rpm: 2 } });
  assert.deepEqual(
    decision.outcomes.map((outcome) => [outcome.name, outcome.limit]),
    [
      ['key.rpm', 2],
      ['key.rps', 100],
    ],
  );
});

test('key, account and IP limits are counted together, all or nothing', async () => {
  const { limiter: instance } = limiter({
    key: { rpm: 3, rps: undefined, tpm: undefined },
    account: { rpm: 4, rps: undefined, tpm: undefined },
    ip: { rpm: 100, rps: undefined, tpm: undefined },
  });
  const subject = (keyId: string): RateLimitSubject => ({ keyId, accountId: 'acme', ip: '192.0.2.1' });
  assert.equal(await allowedOf(instance, subject('k1'), 5), 3);
  // The account has 1 left; k2 gets it, its next request is refused by the account only.
  assert.equal(await allowedOf(instance, subject('k2'), 1), 1);
  const refused = await instance.acquire(subject('k2'));
  assert.equal(refused.allowed, false);
  assert.equal(refused.headline?.name, 'account.rpm');
  // Nothing of the refused requests reached the IP bucket: 100 - 4 left.
  const ipOnly = await instance.acquire({ ip: '192.0.2.1' });
  assert.equal(ipOnly.headline?.remaining, 95);
});

test('headers describe the request limit with the least remaining; a refusal the limit that refused', async () => {
  const { limiter: instance, clock } = limiter({
    key: { rpm: 600, rps: 2, tpm: undefined },
    ip: { rpm: 1200, rps: undefined, tpm: undefined },
  });
  const subject = { keyId: 'k', ip: '198.51.100.7' };
  const first = await instance.acquire(subject);
  assert.deepEqual(rateLimitHeaders(first), {
    'x-ratelimit-limit': '2',
    'x-ratelimit-remaining': '1',
    'x-ratelimit-reset': '1',
  });
  await instance.acquire(subject);
  const refused = await instance.acquire(subject);
  assert.equal(refused.allowed, false);
  assert.equal(refused.headline?.name, 'key.rps');
  assert.equal(refused.retryAfterMs, 500);
  assert.equal(retryAfterSeconds(refused), 1);
  clock.now += 10_000;
  const later = await instance.acquire(subject);
  // 3 requests in: rps bucket has room 1, rpm 600 has 597: rps is the most restrictive.
  assert.deepEqual(rateLimitHeaders(later), {
    'x-ratelimit-limit': '2',
    'x-ratelimit-remaining': '1',
    'x-ratelimit-reset': '1',
  });
});

test('TPM: a key is charged its actual tokens after the reply and refused while in debt', async () => {
  const { limiter: instance, clock } = limiter({ key: { rpm: 1000, rps: undefined, tpm: 6_000 } });
  const subject = { keyId: 'k' };
  assert.equal((await instance.acquire(subject)).allowed, true);
  const charged = await instance.chargeTokens(subject, 9_000);
  assert.equal(charged.outcomes[0]?.name, 'key.tpm');
  assert.equal(charged.outcomes[0]?.remaining, 0);
  const refused = await instance.acquire(subject);
  assert.equal(refused.allowed, false);
  assert.equal(refused.headline?.name, 'key.tpm');
  // 3001 tokens over at 100 tokens/s: 30.01 s, so Retry-After 31.
  assert.ok(Math.abs(refused.retryAfterMs - 30_010) < 1e-6, String(refused.retryAfterMs));
  assert.equal(retryAfterSeconds(refused), 31);
  const error = rateLimitError(refused);
  assert.equal(error.status, 429);
  assert.equal(error.code, 'rate_limited');
  assert.equal(error.retryAfter, 31);
  assert.deepEqual(error.headers, {
    'x-ratelimit-limit': '6000',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': '90',
  });
  assert.match(error.message, /retry in 31 s/);
  clock.now += 30_010;
  assert.equal((await instance.acquire(subject)).allowed, true);
  // Only 1 request was counted against rpm: refused acquires took nothing.
  const rpm = (await instance.acquire(subject)).outcomes.find((outcome) => outcome.name === 'key.rpm');
  assert.equal(rpm?.limit, 1000);
  assert.ok(rpm !== undefined && rpm.remaining >= 997 && rpm.remaining <= 998);
});

test('charging zero tokens or a subject without tpm does nothing; no limits means no headers', async () => {
  const { limiter: instance } = limiter({});
  const decision = await instance.acquire({ keyId: 'k', ip: '::1' });
  assert.equal(decision.allowed, true);
  assert.equal(decision.headline, undefined);
  assert.deepEqual(rateLimitHeaders(decision), {});
  assert.deepEqual((await instance.chargeTokens({ keyId: 'k' }, 0)).outcomes, []);
  assert.equal(instance.shared, false);
  assert.deepEqual(instance.health(), { redisConfigured: false, shared: false, state: 'memory' });
});

test('whole seconds round the real wait up, ignoring float dust', () => {
  assert.equal(wholeSeconds(0), 0);
  assert.equal(wholeSeconds(1), 1);
  assert.equal(wholeSeconds(1000), 1);
  assert.equal(wholeSeconds(1000.0000000001), 1);
  assert.equal(wholeSeconds(1000.5), 2);
  assert.equal(wholeSeconds(59_999), 60);
});

test("a subject's rules are made once, and again when its own limits change (a reloaded key or account)", async () => {
  const { limiter: instance, clock } = limiter({ key: { rpm: 5, rps: undefined, tpm: undefined } });
  const firstLimits = { rpm: 2 };
  assert.equal(await allowedOf(instance, { keyId: 'k', keyLimits: firstLimits }, 5), 2);
  clock.now += 60_000;
  // The same key, reloaded with other limits: a new object, new rules (the bucket carries on).
  assert.equal(await allowedOf(instance, { keyId: 'k', keyLimits: { rpm: 4, tpm: 100 } }, 6), 4);
  assert.equal(instance.countsTokens({ keyId: 'k', keyLimits: { rpm: 4, tpm: 100 } }), true);
  assert.equal(instance.countsTokens({ keyId: 'k', keyLimits: firstLimits }), false);
  clock.now += 60_000;
  assert.equal(await allowedOf(instance, { keyId: 'k' }, 9), 5, 'back on the defaults');
  assert.equal(instance.countsTokens({ keyId: 'k', accountId: 'a', ip: '10.0.0.1' }), false);
});
