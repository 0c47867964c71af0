import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type GatewayProcess, startGatewayProcess, stopGatewayProcess } from '../support/gateway-process.js';
import { sharedRedisOrSkip } from '../support/redis-servers.js';
import { postgresBackend } from '../support/store-backends.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Two real gateway processes on different ports sharing the machine's PostgreSQL (store,
 * LISTEN/NOTIFY) and Redis (rate limits), as two instances behind a load balancer.
 */
const ADMIN_KEY = 'admin-two-instances-0123456789';

const chat = (baseUrl: string, key: string) => postChat(baseUrl, key, chatBody('m', { max_tokens: 2 }));

describe('two instances on shared PostgreSQL and Redis', async () => {
  const redis = await sharedRedisOrSkip('the two-instance tests');
  const postgres = await postgresBackend('two-instances');
  const skip = redis === undefined || postgres.skip !== undefined ? 'PostgreSQL or Redis missing' : false;
  const limitedKey = `sk-two-rpm-${randomBytes(12).toString('hex')}`;
  const revokedKey = `sk-two-rev-${randomBytes(12).toString('hex')}`;
  const instances: GatewayProcess[] = [];

  before(async () => {
    if (skip) return;
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-two-'));
    const config = (name: string) => {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(
        file,
        `listen: { host: 127.0.0.1, port: 0 }
store: "${postgres.store}"
redis: ${redis}
admin_key: ${ADMIN_KEY}
log_level: warn
usage: { journal_dir: ${join(dir, `journal-${name}`)} }
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
accounts: [{ id: shared, balance: 0 }]
keys:
  - { key: ${limitedKey}, account: shared, limits: { rpm: 10 } }
  - { key: ${revokedKey}, account: shared }
`,
      );
      return file;
    };
    // One after the other: both migrate the same schema (the second finds it done).
    instances.push(await startGatewayProcess(config('a')));
    instances.push(await startGatewayProcess(config('b')));
  });

  after(async () => {
    await Promise.all(instances.map((instance) => stopGatewayProcess(instance)));
    await postgres.cleanup();
  });

  test(
    'a key with rpm 10 gets exactly 10 successes spread across both instances',
    { skip, timeout: 30_000 },
    async () => {
      const statuses: number[] = [];
      for (let index = 0; index < 20; index++) {
        const instance = instances[index % 2] as GatewayProcess;
        const response = await chat(instance.baseUrl, limitedKey);
        await response.text();
        statuses.push(response.status);
      }
      assert.equal(statuses.filter((status) => status === 200).length, 10, statuses.join(','));
      assert.equal(statuses.filter((status) => status === 429).length, 10, statuses.join(','));
      // Both instances served some of the ten: the limit is one limit, not one per instance.
      assert.ok(statuses.slice(0, 10).every((status) => status === 200));
    },
  );

  test(
    'a key revoked on one instance is refused by the other within one second',
    { skip, timeout: 30_000 },
    async () => {
      const [a, b] = instances as [GatewayProcess, GatewayProcess];
      assert.equal((await chat(b.baseUrl, revokedKey)).status, 200);
      const list = (await (
        await fetch(`${a.origin}/admin/v1/keys?account=shared`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
      ).json()) as {
        data: Array<{ id: string; prefix: string }>;
      };
      const target = list.data.find((key) => revokedKey.startsWith(key.prefix) && key.prefix.startsWith('sk-two-rev'));
      assert.ok(target, 'the key is listed');
      const revoked = await fetch(`${a.origin}/admin/v1/keys/${target.id}/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      assert.equal(revoked.status, 200);
      const elapsed = await waitFor(
        async () => {
          const response = await chat(b.baseUrl, revokedKey);
          await response.text();
          return response.status === 401;
        },
        1000,
        { what: 'the other instance to refuse the revoked key' },
      );
      console.log(`# revocation seen by the other instance after ${elapsed} ms`);
    },
  );
});
