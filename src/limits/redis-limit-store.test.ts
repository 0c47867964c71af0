import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { limitStoreContract } from '../../test/support/limit-store-contract.js';
import { deleteKeys, sharedRedisOrSkip, uniquePrefix } from '../../test/support/redis-servers.js';
import type { LimitRule } from './limit-rule.js';
import { RedisLimitStore } from './redis-limit-store.js';

const url = await sharedRedisOrSkip('the Redis rate-limit backend tests (src/limits/redis-limit-store.test.ts)');
const prefix = uniquePrefix();

if (url === undefined) {
  test(
    'Redis rate-limit backend (skipped: Redis unreachable, see the warning above)',
    { skip: 'Redis unreachable' },
    () => {},
  );
} else {
  const redisUrl = url;
  after(() => deleteKeys(redisUrl, prefix));

  // The same suite as the in-process backend, on the same injected instants.
  limitStoreContract('redis', async (clock) => {
    const store = new RedisLimitStore({ url: redisUrl, keyPrefix: prefix, clock: clock.read });
    await store.connect();
    return store;
  });

  describe('Redis backend on server time', () => {
    const serverTimeStore = async () => {
      const store = new RedisLimitStore({ url: redisUrl, keyPrefix: prefix });
      await store.connect();
      return store;
    };
    const rule = (key: string, limit: number): LimitRule => ({
      name: key,
      key,
      limit,
      periodMs: 60_000,
      cost: 1,
      mode: 'consume',
    });

    test('counts on the server clock and expires drained buckets', async () => {
      const store = await serverTimeStore();
      try {
        const limit = rule('server-time:a', 5);
        const answers = [];
        for (let index = 0; index < 8; index++) answers.push((await store.apply([limit])).allowed);
        assert.deepEqual(answers, [true, true, true, true, true, false, false, false]);
        const ttl = await store.client.pttl(`${prefix}server-time:a`);
        assert.ok(ttl > 59_000 && ttl <= 61_000, `pttl ${ttl}`);
      } finally {
        await store.close();
      }
    });

    test('two instances share one budget, exactly, under concurrency', async () => {
      const [first, second] = [await serverTimeStore(), await serverTimeStore()];
      try {
        const limit = rule('server-time:shared', 20);
        const answers = await Promise.all(
          Array.from({ length: 60 }, (_, index) => (index % 2 === 0 ? first : second).apply([limit])),
        );
        assert.equal(answers.filter((answer) => answer.allowed).length, 20);
        assert.ok(answers.every((answer) => answer.shared));
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });
  });
}
