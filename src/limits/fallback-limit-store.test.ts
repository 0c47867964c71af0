import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino, type Logger } from 'pino';
import type { LimitSettings } from '../config/gateway-config.js';
import { RateLimiter, type RateLimitDecision } from './rate-limiter.js';
import { freePort } from '../../test/support/free-port.js';
import { RedisChild, redisServerOrSkip, uniquePrefix } from '../../test/support/redis-servers.js';
import { waitFor } from '../../test/support/wait-for.js';

const SETTINGS: LimitSettings = {
  key: { rpm: 3, rps: undefined, tpm: undefined },
  account: { rpm: undefined, rps: undefined, tpm: undefined },
  ip: { rpm: undefined, rps: undefined, tpm: undefined },
};

function capturedLogger() {
  const lines: Array<{ msg?: string; level?: number }> = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as { msg?: string });
      callback();
    },
  });
  return {
    logger: pino({ level: 'info' }, destination),
    messages: (text: string) => lines.filter((line) => line.msg === text).length,
  };
}

function limiterFor(url: string, logger: Logger): RateLimiter {
  return new RateLimiter({
    settings: SETTINGS,
    redisUrl: url,
    logger,
    redis: { keyPrefix: uniquePrefix(), commandTimeoutMs: 75, connectTimeoutMs: 300, reconnectMaxDelayMs: 100 },
    redisRetryDelayMs: 100,
  });
}

/** acquire, failing the test if it takes longer than `boundMs`. */
async function timedAcquire(limiter: RateLimiter, keyId: string, boundMs = 250): Promise<RateLimitDecision> {
  const started = performance.now();
  const decision = await limiter.acquire({ keyId });
  const took = performance.now() - started;
  assert.ok(took < boundMs, `acquire took ${took.toFixed(1)} ms`);
  return decision;
}

const skip = redisServerOrSkip('the Redis fault tests (src/limits/fallback-limit-store.test.ts)')
  ? false
  : 'redis-server missing';

const UNAVAILABLE = 'redis unavailable, using per-instance limits';
const AVAILABLE = 'redis available again, limits shared across instances';

test(
  'Redis killed mid-run: limits keep answering per instance, then shared again when it returns',
  { timeout: 30_000, skip },
  async (t) => {
    const redis = new RedisChild(await freePort());
    t.after(() => redis.kill());
    await redis.start();
    const { logger, messages } = capturedLogger();
    const limiter = limiterFor(redis.url, logger);
    t.after(() => limiter.close());

    assert.equal(await limiter.start(), true);
    assert.equal(limiter.shared, true);
    assert.deepEqual(limiter.health(), { redisConfigured: true, shared: true, state: 'shared' });
    const sharedDecision = await timedAcquire(limiter, 'k1');
    assert.equal(sharedDecision.shared, true);
    assert.equal(sharedDecision.headline?.remaining, 2);

    await redis.kill();
    // Every check still answers, quickly, from this process's memory: 3 per minute here too.
    const local = [];
    for (let index = 0; index < 5; index++) local.push(await timedAcquire(limiter, 'k2'));
    assert.deepEqual(
      local.map((decision) => decision.allowed),
      [true, true, true, false, false],
    );
    assert.ok(local.every((decision) => !decision.shared));
    assert.equal(limiter.shared, false);
    assert.equal(limiter.health().state, 'local');
    assert.equal(messages(UNAVAILABLE), 1, 'logged once');

    await redis.start();
    await waitFor(() => limiter.shared, 5_000, { what: 'the limiter to use Redis again' });
    const back = await timedAcquire(limiter, 'k3');
    assert.equal(back.shared, true);
    assert.equal(messages(AVAILABLE), 1);
    assert.equal(messages(UNAVAILABLE), 1);
  },
);

test(
  'Redis that hangs (SIGSTOP): checks time out fast into local limits and return after SIGCONT',
  { timeout: 30_000, skip },
  async (t) => {
    const redis = new RedisChild(await freePort());
    t.after(() => redis.kill());
    await redis.start();
    const { logger, messages } = capturedLogger();
    const limiter = limiterFor(redis.url, logger);
    t.after(() => limiter.close());
    assert.equal(await limiter.start(), true);

    redis.signal('SIGSTOP');
    const hung = await timedAcquire(limiter, 'k1');
    assert.equal(hung.allowed, true);
    assert.equal(hung.shared, false);
    assert.equal(limiter.shared, false);
    assert.equal(messages(UNAVAILABLE), 1);

    redis.signal('SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, 150));
    await waitFor(
      () => {
        void limiter.acquire({ keyId: 'probe' });
        return limiter.shared;
      },
      5_000,
      { what: 'a successful Redis round trip' },
    );
    assert.equal((await timedAcquire(limiter, 'k2')).shared, true);
    assert.equal(messages(AVAILABLE), 1);
  },
);

test(
  'Redis unreachable from the start: start() resolves false, limits are local, logged once',
  { timeout: 10_000 },
  async (t) => {
    const { logger, messages } = capturedLogger();
    const limiter = limiterFor(`redis://127.0.0.1:${await freePort()}`, logger);
    t.after(() => limiter.close());
    const started = performance.now();
    assert.equal(await limiter.start(), false);
    assert.ok(performance.now() - started < 1_000);
    const decisions = [];
    for (let index = 0; index < 4; index++) decisions.push(await timedAcquire(limiter, 'k'));
    assert.deepEqual(
      decisions.map((decision) => decision.allowed),
      [true, true, true, false],
    );
    assert.equal(limiter.shared, false);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a few reconnect attempts
    assert.equal(messages(UNAVAILABLE), 1);
  },
);
