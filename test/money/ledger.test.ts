import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type OpenAI from 'openai';
import {
  accountWithKey,
  AdminClient,
  expectedCostNano,
  gatewayYaml,
  openaiClient,
  rejectsWith,
  type ReportedUsage,
  usdToNano,
} from '../support/money.js';
import { storeBackends } from '../support/store-backends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// Issue 4: balances and key spend equal the usage ledger's sums exactly (nano-USD), top-ups
// and adjustments are ledger entries the next request sees, usage filters and totals, and
// a stream cut by the client is still charged. Against PGlite and PostgreSQL.

const backends = await storeBackends('ledger');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

interface Spent {
  readonly requestId: string;
  readonly model: string;
  readonly usage: ReportedUsage;
  readonly stream: boolean;
}

/** One non-streaming request; returns what the usage row must say. */
async function spend(client: OpenAI, params: Params): Promise<Spent> {
  const { data, response } = await client.chat.completions.create(params).withResponse();
  assert.ok(data.usage, 'usage reported');
  return {
    requestId: response.headers.get('x-request-id') as string,
    model: params.model,
    usage: data.usage,
    stream: false,
  };
}

async function spendStreaming(client: OpenAI, params: Params): Promise<Spent> {
  const { data: stream, response } = await client.chat.completions
    .create({ ...params, stream: true, stream_options: { include_usage: true } })
    .withResponse();
  let usage: ReportedUsage | undefined;
  let text = '';
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  assert.ok(text.length > 0);
  assert.ok(usage, 'the stream ended with usage');
  return { requestId: response.headers.get('x-request-id') as string, model: params.model, usage, stream: true };
}

const ask = (content: string) => [{ role: 'user' as const, content }];

for (const backend of backends) {
  describe(`ledger on ${backend.name}`, { skip: backend.skip }, () => {
    let gateway: TestGateway;
    let admin: AdminClient;
    before(async () => {
      gateway = await startTestGateway(gatewayYaml(backend));
      admin = new AdminClient(gateway.baseUrl);
    });
    after(() => gateway?.close());

    test('after a known sequence, balance drop = key spent = usage totals = Σ(reported usage × prices), exact in nano-USD', async () => {
      const start = 2.5;
      const { accountId, keyId, secret } = await accountWithKey(
        admin,
        { id: 'exact', balance: start },
        { spend_limit: 1 },
      );
      const client = openaiClient(gateway.baseUrl, secret);
      const spent: Spent[] = [];
      spent.push(
        await spend(client, { model: 'paid', messages: ask('What is the price of one token?'), max_tokens: 7 }),
      );
      spent.push(
        await spend(client, {
          model: 'paid',
          messages: [
            { role: 'system', content: 'You are terse.' },
            ...ask('Count the words in this short sentence, please'),
          ],
        }),
      );
      spent.push(await spendStreaming(client, { model: 'paid', messages: ask('Stream me a ledger line') }));
      spent.push(
        await spend(client, { model: 'thinker', messages: ask('Think hard about money'), reasoning_effort: 'high' }),
      );
      spent.push(await spendStreaming(client, { model: 'thinker', messages: ask('Think about streams') }));
      spent.push(await spend(client, { model: 'free', messages: ask('Nothing to pay') }));
      spent.push(await spend(client, { model: 'flat', messages: ask('Flat rate'), max_tokens: 9 }));
      assert.ok(
        (spent[3]?.usage.completion_tokens_details?.reasoning_tokens ?? 0) > 0,
        'reasoning tokens are priced too',
      );

      const expected = spent.map((request) => expectedCostNano(request.model, request.usage));
      const total = expected.reduce((sum, cost) => sum + cost, 0);
      assert.ok(total > 0);

      const report = await admin.usage({ key: keyId });
      assert.equal(report.totals.requests, spent.length);
      assert.equal(report.totals.cost_nano, total, 'usage totals');
      assert.equal(usdToNano(report.totals.cost), total);
      assert.equal(
        report.totals.prompt_tokens,
        spent.reduce((sum, request) => sum + request.usage.prompt_tokens, 0),
      );
      assert.equal(
        report.totals.completion_tokens,
        spent.reduce((sum, request) => sum + request.usage.completion_tokens, 0),
      );
      assert.equal(
        report.totals.reasoning_tokens,
        spent.reduce((sum, request) => sum + (request.usage.completion_tokens_details?.reasoning_tokens ?? 0), 0),
      );
      const rows = new Map<string, Record<string, unknown>>(
        report.data.map((row: Record<string, unknown>) => [row.request_id as string, row]),
      );
      spent.forEach((request, index) => {
        const row = rows.get(request.requestId);
        assert.ok(row, `a usage row for ${request.requestId}`);
        assert.equal(row.cost_nano, expected[index], `cost of ${request.model} request ${index}`);
        assert.equal(row.model, request.model);
        assert.equal(row.account, accountId);
        assert.equal(row.stream, request.stream);
        assert.equal(row.estimated, false);
        assert.equal(row.status, 200);
        assert.equal(row.prompt_tokens, request.usage.prompt_tokens);
        assert.equal(row.completion_tokens, request.usage.completion_tokens);
      });

      assert.equal(await admin.balanceNano(accountId), usdToNano(start) - total, 'balance drop');
      assert.equal(await admin.spentNano(keyId), total, 'key spent');
      const account = await admin.ok('GET', `/accounts/${accountId}`);
      assert.equal(account.reserved, 0, 'nothing left reserved');
      // Usage is not a balance entry: the operator ledger holds only the starting balance.
      const ledger = await admin.ok('GET', `/accounts/${accountId}/ledger`);
      assert.deepEqual(
        ledger.data.map((entry: { kind: string; amount: number }) => [entry.kind, entry.amount]),
        [['initial', start]],
      );
    });

    test('top-up and adjustment: ledger entries with reasons that the next request sees', async () => {
      const { accountId, secret } = await accountWithKey(admin, { id: 'topup', balance: 0 });
      const client = openaiClient(gateway.baseUrl, secret);
      const request = () => spend(client, { model: 'paid', messages: ask('Top me up'), max_tokens: 5 });
      await rejectsWith(request(), 402, 'insufficient_balance', 'billing_error');

      const topped = await admin.ok('POST', `/accounts/${accountId}/topup`, {
        amount: 0.01,
        reason: 'invoice 42 paid',
      });
      assert.equal(topped.balance, 0.01);
      assert.deepEqual(
        [topped.entry.kind, topped.entry.amount, topped.entry.balance_after, topped.entry.reason],
        ['topup', 0.01, 0.01, 'invoice 42 paid'],
      );
      const first = await request();
      const cost = expectedCostNano('paid', first.usage);
      await admin.usage({ account: accountId });
      assert.equal(await admin.balanceNano(accountId), usdToNano(0.01) - cost);

      // Take everything away (and a bit more): the next paid request is refused at once.
      const adjusted = await admin.ok('POST', `/accounts/${accountId}/adjust`, {
        amount: -0.02,
        reason: 'refund reversed',
      });
      assert.equal(usdToNano(adjusted.balance), usdToNano(0.01) - cost - usdToNano(0.02));
      assert.equal(adjusted.entry.kind, 'adjustment');
      await rejectsWith(request(), 402, 'insufficient_balance', 'billing_error');
      await admin.ok('POST', `/accounts/${accountId}/adjust`, { amount: 1, reason: 'goodwill credit' });
      await request();

      const ledger = await admin.ok('GET', `/accounts/${accountId}/ledger`);
      const entries = [...ledger.data].reverse() as Array<{
        kind: string;
        amount: number;
        balance_after: number;
        reason: string;
      }>;
      assert.deepEqual(
        entries.map((entry) => [entry.kind, entry.amount, entry.reason]),
        [
          ['initial', 0, 'starting balance'],
          ['topup', 0.01, 'invoice 42 paid'],
          ['adjustment', -0.02, 'refund reversed'],
          ['adjustment', 1, 'goodwill credit'],
        ],
      );
      // balance_after includes the usage committed before each entry.
      assert.equal(
        usdToNano(entries[3]?.balance_after ?? NaN),
        usdToNano(0.01) - cost - usdToNano(0.02) + usdToNano(1),
      );

      const zero = await admin.call('POST', `/accounts/${accountId}/topup`, { amount: 0, reason: 'nothing' });
      assert.equal(zero.status, 400);
      const noReason = await admin.call('POST', `/accounts/${accountId}/topup`, { amount: 1 });
      assert.equal(noReason.status, 400);
      const negativeTopup = await admin.call('POST', `/accounts/${accountId}/topup`, {
        amount: -1,
        reason: 'not a top-up',
      });
      assert.equal(negativeTopup.status, 400, JSON.stringify(negativeTopup.body));
      assert.equal((await admin.call('POST', '/accounts/nobody-at-all/topup', { amount: 1, reason: 'x' })).status, 404);
    });

    test('usage query: filters by key, account, model, from/to; totals cover every matching row', async () => {
      const a = await accountWithKey(admin, { id: 'usage-a', balance: 5 });
      const b = await accountWithKey(admin, { id: 'usage-b', balance: 5 });
      const a2 = await admin.ok('POST', '/keys', { account: a.accountId });
      const clientA = openaiClient(gateway.baseUrl, a.secret);
      const clientA2 = openaiClient(gateway.baseUrl, a2.key);
      const clientB = openaiClient(gateway.baseUrl, b.secret);
      const early = [
        await spend(clientA, { model: 'paid', messages: ask('one'), max_tokens: 4 }),
        await spend(clientA, { model: 'free', messages: ask('two') }),
        await spend(clientB, { model: 'paid', messages: ask('three'), max_tokens: 6 }),
      ];
      await admin.usage({ limit: '0' }); // everything so far committed
      await sleep(30);
      const middle = new Date().toISOString();
      await sleep(30);
      const late = [
        await spend(clientA2, { model: 'paid', messages: ask('four'), max_tokens: 5 }),
        await spend(clientA, { model: 'thinker', messages: ask('five'), reasoning_effort: 'low' }),
        await spend(clientB, { model: 'free', messages: ask('six') }),
      ];
      const all = [...early, ...late];
      const check = async (query: Record<string, string>, expected: Spent[]) => {
        const report = await admin.usage(query);
        const ids = (report.data as Array<{ request_id: string }>).map((row) => row.request_id).sort();
        assert.deepEqual(ids, expected.map((request) => request.requestId).sort(), JSON.stringify(query));
        assert.equal(report.totals.requests, expected.length);
        assert.equal(
          report.totals.cost_nano,
          expected.reduce((sum, request) => sum + expectedCostNano(request.model, request.usage), 0),
          `totals ${JSON.stringify(query)}`,
        );
        return report;
      };
      const [a1, a1free, b1, a2paid, a1think, b1free] = all as [Spent, Spent, Spent, Spent, Spent, Spent];
      await check({ account: a.accountId }, [a1, a1free, a2paid, a1think]);
      await check({ account: b.accountId }, [b1, b1free]);
      await check({ key: a.keyId }, [a1, a1free, a1think]);
      await check({ key: a2.prefix }, [a2paid]);
      await check({ account: a.accountId, model: 'paid' }, [a1, a2paid]);
      await check({ account: b.accountId, model: 'free' }, [b1free]);
      await check({ account: a.accountId, to: middle }, [a1, a1free]);
      await check({ account: a.accountId, from: middle }, [a2paid, a1think]);
      await check({ account: b.accountId, from: middle, model: 'paid' }, []);
      // limit shortens the rows, never the totals; newest first.
      const limited = await admin.usage({ account: a.accountId, limit: '1' });
      assert.equal(limited.data.length, 1);
      assert.equal(limited.data[0].request_id, a1think.requestId);
      assert.equal(limited.totals.requests, 4);
      assert.equal((await admin.call('GET', '/usage?from=yesterday')).status, 400);
      assert.equal((await admin.call('GET', '/usage?limit=5000')).status, 400);
    });

    test('a stream the client cuts is still charged: its row is in the ledger and the balance drops by its cost', async () => {
      const start = 1;
      const { accountId, keyId, secret } = await accountWithKey(admin, { id: 'cut', balance: start });
      const client = openaiClient(gateway.baseUrl, secret);
      const controller = new AbortController();
      const stream = await client.chat.completions.create(
        {
          model: 'paid-slow',
          messages: ask('Tell me a long story about a ledger that never loses a row'),
          stream: true,
        },
        { signal: controller.signal },
      );
      let contentChunks = 0;
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content) contentChunks++;
        if (contentChunks === 3) {
          controller.abort();
          break;
        }
      }
      assert.equal(contentChunks, 3);
      let report: { data: Array<Record<string, unknown>>; totals: { cost_nano: number } } | undefined;
      await waitFor(
        async () => {
          report = await admin.usage({ key: keyId });
          return (report?.data.length ?? 0) > 0;
        },
        5000,
        { everyMs: 50, what: 'the usage row of the cut stream' },
      );
      const row = report?.data[0];
      assert.ok(row, 'the cut stream has a usage row');
      assert.equal(report?.data.length, 1);
      assert.equal(row.stream, true);
      assert.equal(row.error_code, 'client_aborted');
      const completion = row.completion_tokens as number;
      // The node's usage never came: the gateway counted what it relayed before the cut.
      assert.equal(row.estimated, true);
      assert.ok(completion >= 1, `charged for what was produced before the cut (${completion})`);
      assert.notEqual(row.finish_reason, 'stop');
      assert.ok((row.prompt_tokens as number) > 0);
      const cost = expectedCostNano('paid-slow', {
        prompt_tokens: row.prompt_tokens as number,
        completion_tokens: completion,
      });
      assert.equal(row.cost_nano, cost);
      assert.ok(cost > 0);
      assert.equal(await admin.balanceNano(accountId), usdToNano(start) - cost);
      assert.equal(await admin.spentNano(keyId), cost);
      assert.equal((await admin.ok('GET', `/accounts/${accountId}`)).reserved, 0, 'the reservation was released');
    });
  });
}
