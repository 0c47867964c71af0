import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import OpenAI from 'openai';
import { runCli } from '../support/gateway-process.js';
import { expectedCostNano, gatewayYaml, openaiClient, uniqueId, usdToNano } from '../support/money.js';
import { storeBackends } from '../support/store-backends.js';
import { startTestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// End to end: create an account and a key with the CLI, spend with the
// openai client, watch the balance fall by exactly the priced usage, hit 402 at the key's
// limit, query usage, in --json and table output. On PGlite the CLI goes through the
// running gateway's admin API (the embedded store is single-process); on PostgreSQL it
// works on the store directly and the gateway learns of the changes by NOTIFY.

const backends = await storeBackends('cli');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

describe('CLI end to end: account, key, spend, balance, usage', { concurrency: true }, () => {
  for (const backend of backends) {
    test(
      `${backend.name}: CLI account + key, spend with openai, exact balance, 402 at the limit, usage in JSON and tables`,
      { skip: backend.skip },
      async (t) => {
        const gateway = await startTestGateway(gatewayYaml(backend));
        t.after(() => gateway.close());
        const directory = mkdtempSync(join(tmpdir(), 'switchyard-cli-money-'));
        t.after(() => rmSync(directory, { recursive: true, force: true }));
        const config = join(directory, 'gateway.yaml');
        // The same file the gateway runs, with the port it got (where the CLI finds its admin API).
        writeFileSync(config, gatewayYaml(backend, { listenPort: gateway.port }));
        const cli = async (...args: string[]) => {
          const began = Date.now();
          const result = await runCli([...args, '--config', config], {
            SWITCHYARD_CONFIG: '',
            SWITCHYARD_URL: '',
            SWITCHYARD_ADMIN_KEY: '',
          });
          t.diagnostic(`${backend.name} ${args.join(' ')}: ${Date.now() - began} ms`);
          assert.equal(result.code, 0, `switchyard ${args.join(' ')}: ${result.stderr}`);
          return result.stdout;
        };
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const cliJson = async (...args: string[]): Promise<any> => JSON.parse(await cli(...args, '--json'));

        const accountId = uniqueId('cli');
        const start = 0.5;
        const account = await cliJson(
          'accounts',
          'create',
          accountId,
          '--balance',
          String(start),
          '--models',
          'paid,free',
          '--name',
          'CLI customer',
        );
        assert.equal(account.id, accountId);
        assert.equal(account.balance, start);
        const created = await cliJson(
          'keys',
          'create',
          '--account',
          accountId,
          '--spend-limit',
          '0.0003',
          '--name',
          'cli key',
        );
        const secret = created.key as string;
        assert.match(secret, /^sk-/);
        assert.equal(created.status, 'active');

        const client = openaiClient(gateway.baseUrl, secret);
        // PostgreSQL: the gateway hears of the key by NOTIFY, a moment later.
        let models: string[] = [];
        await waitFor(
          async () => {
            try {
              models = (await client.models.list()).data.map((model) => model.id).sort();
              return true;
            } catch (error) {
              assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
              return false;
            }
          },
          5000,
          { everyMs: 50, what: 'the gateway to know the new key' },
        );
        assert.deepEqual(models, ['free', 'paid'], 'the new key works and sees only its account’s models');

        // Spend until the key's limit refuses.
        const costs: number[] = [];
        const requestIds: string[] = [];
        let refusal: unknown;
        for (let index = 0; index < 30 && refusal === undefined; index++) {
          try {
            const { data, response } = await client.chat.completions
              .create({ model: 'paid', max_tokens: 10, messages: [{ role: 'user', content: `CLI spend ${index}` }] })
              .withResponse();
            costs.push(expectedCostNano('paid', data.usage as OpenAI.CompletionUsage));
            requestIds.push(response.headers.get('x-request-id') as string);
          } catch (error) {
            refusal = error;
          }
        }
        assert.ok(refusal instanceof OpenAI.APIError, `a 402 within 30 requests, got ${String(refusal)}`);
        assert.equal(refusal.status, 402);
        assert.equal(refusal.code, 'api_key_limit_exceeded');
        assert.ok(costs.length >= 5, `served ${costs.length}`);
        const total = costs.reduce((sum, cost) => sum + cost, 0);
        assert.ok(total <= usdToNano(0.0003));
        // Free models still served at the key's limit.
        assert.equal(
          (await client.chat.completions.create({ model: 'free', messages: [{ role: 'user', content: 'free one' }] }))
            .object,
          'chat.completion',
        );
        // Direct store access (PostgreSQL) reads committed rows only: let the gateway write its batch.
        await gateway.running.services.usage.flush();

        const shown = await cliJson('accounts', 'show', accountId);
        assert.equal(
          usdToNano(shown.balance),
          usdToNano(start) - total,
          'the balance fell by exactly the priced usage',
        );
        assert.equal(shown.keys.length, 1);
        assert.ok(!JSON.stringify(shown).includes(secret), 'the secret is never shown again');
        const [key] = shown.keys;
        assert.equal(key.id, created.id);
        assert.equal(usdToNano(key.spent), total, 'the key spent exactly the priced usage');
        assert.equal(key.spend_limit, 0.0003);

        const usage = await cliJson('usage', '--key', created.id);
        assert.equal(usage.totals.requests, costs.length + 1);
        assert.equal(usage.totals.cost_nano, total);
        assert.deepEqual(
          (usage.data as Array<{ request_id: string; model: string }>)
            .filter((row) => row.model === 'paid')
            .map((row) => row.request_id)
            .sort(),
          [...requestIds].sort(),
        );

        // Tables for people.
        const table = await cli('usage', '--account', accountId);
        const lines = table.trimEnd().split('\n');
        assert.match(
          lines[0] ?? '',
          /^CREATED_AT\s+REQUEST_ID\s+KEY\s+END_USER\s+MODEL\s+NODE\s+STATUS\s+PROMPT_TOKENS\s+COMPLETION_TOKENS\s+REASONING_TOKENS\s+COST\s+ESTIMATED$/,
        );
        for (const id of requestIds) assert.ok(table.includes(id), `the table lists ${id}`);
        assert.match(table, new RegExp(`Totals: requests ${costs.length + 1}, `));
        const keysTable = await cli('keys', 'list', '--account', accountId);
        assert.match(
          keysTable,
          /^ID\s+PREFIX\s+ACCOUNT\s+NAME\s+STATUS\s+SPEND_LIMIT\s+SPENT\s+REMAINING\s+LAST_USED_AT/,
        );
        assert.ok(keysTable.includes(created.prefix) && keysTable.includes('active'));
        assert.ok(!keysTable.includes(secret));

        // The operator lifts the limit with the CLI (by the key's prefix); the next request goes through.
        await cli('keys', 'set', created.prefix, '--spend-limit', 'none');
        await waitFor(
          async () => {
            try {
              await client.chat.completions.create({
                model: 'paid',
                max_tokens: 10,
                messages: [{ role: 'user', content: 'after the top-up' }],
              });
              return true;
            } catch (error) {
              assert.ok(error instanceof OpenAI.APIError && error.status === 402, String(error));
              return false;
            }
          },
          5000,
          { everyMs: 50, what: 'the key to be served again after the limit was lifted' },
        );
        const blocked = await cliJson('keys', 'block', created.id);
        assert.equal(blocked.status, 'blocked');
        let status = 0;
        await waitFor(
          async () => {
            try {
              await client.models.list();
              return false;
            } catch (error) {
              status = (error as InstanceType<typeof OpenAI.APIError>).status as number;
              return true;
            }
          },
          5000,
          { everyMs: 50, what: 'the blocked key to be refused' },
        );
        assert.equal(status, 401, 'a key blocked with the CLI is refused');
      },
    );
  }
});
