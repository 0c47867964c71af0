import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../support/free-port.js';
import { type GatewayProcess, startGatewayProcess, stopGatewayProcess } from '../support/gateway-process.js';
import { RedisChild, redisServerOrSkip } from '../support/redis-servers.js';
import { waitFor } from '../support/wait-for.js';
import { chatBody, postChat } from '../support/post-chat.js';

/**
 * Issue 5 item 4: Redis stopped under two running instances. Each instance keeps serving
 * with per-instance limits and says so (log, /readyz, metrics); when Redis is back the
 * limits are shared again. The Redis is a private redis-server on its own port, never the
 * machine's shared one.
 */
const ADMIN_KEY = 'admin-redis-outage-0123456789';
const skip = redisServerOrSkip('the Redis outage test (test/scale-out/redis-outage.test.ts)')
  ? false
  : 'redis-server missing';
/** One key per phase, each with rpm 10, so no phase inherits another's counts. */
const keys = ['shared', 'down', 'back'].map((phase) => `sk-redis-${phase}-${randomBytes(12).toString('hex')}`) as [
  string,
  string,
  string,
];

const chat = async (instance: GatewayProcess, key: string) => {
  const response = await postChat(instance.baseUrl, key, chatBody('m', { max_tokens: 2 }));
  await response.text();
  return response.status;
};

const readiness = async (instance: GatewayProcess) => {
  const response = await fetch(`${instance.origin}/readyz`);
  return { status: response.status, failing: ((await response.json()) as { failing: string[] }).failing };
};

const redisUp = async (instance: GatewayProcess) => {
  const metrics = await (
    await fetch(`${instance.origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
  ).text();
  return /switchyard_dependency_up\{name="redis"\} (\d)/.exec(metrics)?.[1];
};

describe('Redis stopped under two instances', { skip }, () => {
  const instances: GatewayProcess[] = [];
  let redis: RedisChild;

  before(async () => {
    redis = new RedisChild(await freePort());
    await redis.start();
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-redis-outage-'));
    for (const name of ['a', 'b']) {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(
        file,
        `listen: { host: 127.0.0.1, port: 0 }
store: memory
redis: ${redis.url}
admin_key: ${ADMIN_KEY}
log_level: info
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
keys:
${keys.map((key) => `  - { key: ${key}, limits: { rpm: 10 } }`).join('\n')}
`,
      );
      instances.push(await startGatewayProcess(file));
    }
  });
  after(async () => {
    await Promise.all(instances.map((instance) => stopGatewayProcess(instance)));
    await redis?.kill();
  });

  /** 20 requests, one after the other, alternating between the instances. */
  const alternate = async (key: string) => {
    const statuses: number[] = [];
    for (let index = 0; index < 20; index++) statuses.push(await chat(instances[index % 2] as GatewayProcess, key));
    return statuses;
  };
  const count = (statuses: number[], status: number) => statuses.filter((one) => one === status).length;

  test(
    'shared, then per instance while Redis is down, then shared again when it is back',
    { timeout: 60_000 },
    async () => {
      const [a, b] = instances as [GatewayProcess, GatewayProcess];
      // Shared: rpm 10 holds across both instances.
      const shared = await alternate(keys[0]);
      assert.deepEqual([count(shared, 200), count(shared, 429)], [10, 10], shared.join(','));
      for (const instance of instances) assert.equal(await redisUp(instance), '1');

      await redis.kill();
      // Still serving: every request answered, now with each instance's own rpm 10.
      const down = await alternate(keys[1]);
      assert.deepEqual([count(down, 200), count(down, 429)], [20, 0], down.join(','));
      for (const instance of instances) {
        assert.deepEqual(await readiness(instance), { status: 503, failing: ['redis'] });
        assert.equal(await redisUp(instance), '0');
        assert.match(instance.log(), /redis unavailable, using per-instance limits/);
      }
      // The key that was limited in Redis is now counted per instance: 10 more on each.
      assert.equal(await chat(a, keys[0]), 200);
      assert.equal(await chat(b, keys[0]), 200);

      await redis.start();
      for (const instance of instances) {
        await waitFor(async () => (await readiness(instance)).status === 200, 15_000, {
          everyMs: 100,
          what: `${instance.baseUrl} to see Redis again`,
        });
      }
      const back = await alternate(keys[2]);
      assert.deepEqual([count(back, 200), count(back, 429)], [10, 10], back.join(','));
      for (const instance of instances)
        assert.match(instance.log(), /redis available again, limits shared across instances/);
    },
  );
});
