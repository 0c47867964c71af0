import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accountWithKey, AdminClient, chat, gatewayYaml, usdToNano } from '../support/money.js';
import { storeBackends } from '../support/store-backends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 4 / PRODUCT.md decision 12: 200 concurrent requests never overspend a key's limit
// or an account's balance, against PGlite and PostgreSQL.

const backends = await storeBackends('concurrency');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

const CONCURRENT = 200;
/** `flat` costs 2 USD per million output tokens and nothing for input: 8 tokens = 16,000 nano-USD, reserved and charged alike. */
const FLAT_COST_NANO = 16_000;
const FLAT_REQUEST = { model: 'flat', max_tokens: 8 };

async function burst(baseUrl: string, secret: string, body: Record<string, unknown>) {
  const answers = await Promise.all(
    Array.from({ length: CONCURRENT }, (_, index) =>
      chat(baseUrl, secret, { ...body, messages: [{ role: 'user', content: `burst request number ${index}` }] }),
    ),
  );
  const tally = new Map<string, number>();
  for (const answer of answers) {
    const label = answer.status === 200 ? '200' : `${answer.status} ${answer.body.error?.code}`;
    tally.set(label, (tally.get(label) ?? 0) + 1);
  }
  return { answers, tally: Object.fromEntries(tally) };
}

for (const backend of backends) {
  describe(`no overspending under concurrency on ${backend.name}`, { skip: backend.skip }, () => {
    let gateway: TestGateway;
    let admin: AdminClient;
    before(async () => {
      gateway = await startTestGateway(gatewayYaml(backend));
      admin = new AdminClient(gateway.baseUrl);
    });
    after(() => gateway?.close());

    test(`${CONCURRENT} concurrent requests, key limit covering exactly 10: 10 served, the rest 402 api_key_limit_exceeded, spent = limit`, async () => {
      const limitNano = 10 * FLAT_COST_NANO;
      const { accountId, keyId, secret } = await accountWithKey(
        admin,
        { id: 'burst-key', balance: 10 },
        { spend_limit: limitNano / 1e9 },
      );
      const { answers, tally } = await burst(gateway.baseUrl, secret, FLAT_REQUEST);
      assert.deepEqual(tally, { '200': 10, [`402 api_key_limit_exceeded`]: CONCURRENT - 10 }, JSON.stringify(tally));
      for (const answer of answers.filter((one) => one.status === 200))
        assert.equal(answer.body.usage.completion_tokens, 8);
      const report = await admin.usage({ key: keyId });
      assert.equal(report.totals.requests, 10);
      assert.equal(report.totals.cost_nano, limitNano);
      assert.equal(await admin.spentNano(keyId), limitNano);
      assert.equal(await admin.balanceNano(accountId), usdToNano(10) - limitNano);
      assert.equal((await admin.ok('GET', `/accounts/${accountId}`)).reserved, 0);
      // At the limit: one more is refused, a raised limit serves again.
      assert.equal((await chat(gateway.baseUrl, secret, FLAT_REQUEST)).status, 402);
    });

    test(`${CONCURRENT} concurrent requests, balance covering exactly 10: 10 served, the rest 402 insufficient_balance, balance ends at 0`, async () => {
      const { accountId, keyId, secret } = await accountWithKey(admin, {
        id: 'burst-balance',
        balance: (10 * FLAT_COST_NANO) / 1e9,
      });
      const { tally } = await burst(gateway.baseUrl, secret, FLAT_REQUEST);
      assert.deepEqual(tally, { '200': 10, '402 insufficient_balance': CONCURRENT - 10 }, JSON.stringify(tally));
      const report = await admin.usage({ account: accountId });
      assert.equal(report.totals.requests, 10);
      assert.equal(await admin.balanceNano(accountId), 0);
      assert.equal(await admin.spentNano(keyId), 10 * FLAT_COST_NANO);
    });

    test(`${CONCURRENT} concurrent requests on a priced-input model: spent ≤ limit, successes between limit/estimate and limit/cost`, async () => {
      // Measure one request's real cost, then give a fresh key room for about 10.
      const probe = await accountWithKey(admin, { id: 'burst-probe', balance: 1 });
      const one = await chat(gateway.baseUrl, probe.secret, {
        model: 'paid',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'burst request number 100' }],
      });
      assert.equal(one.status, 200);
      const costNano = (await admin.usage({ key: probe.keyId })).totals.cost_nano as number;
      const limitNano = Math.floor(10.5 * costNano);
      const { accountId, keyId, secret } = await accountWithKey(
        admin,
        { id: 'burst-paid', balance: 10 },
        { spend_limit: limitNano / 1e9 },
      );
      const { answers, tally } = await burst(gateway.baseUrl, secret, { model: 'paid', max_tokens: 8 });
      const served = answers.filter((answer) => answer.status === 200).length;
      assert.equal(served + (tally['402 api_key_limit_exceeded'] ?? 0), CONCURRENT, JSON.stringify(tally));
      const report = await admin.usage({ key: keyId, limit: '1000' });
      assert.equal(report.totals.requests, served);
      const spent = await admin.spentNano(keyId);
      assert.equal(spent, report.totals.cost_nano);
      assert.equal(await admin.balanceNano(accountId), usdToNano(10) - spent);
      assert.ok(spent <= limitNano, `spent ${spent} ≤ limit ${limitNano}`);
      // Costs of the served requests vary a little with the prompt; the worst case reserved is above each.
      const costs = (report.data as Array<{ cost_nano: number }>).map((row) => row.cost_nano);
      assert.ok(served <= Math.floor(limitNano / Math.min(...costs)), `served ${served}`);
      assert.ok(
        served >= Math.floor(limitNano / (2 * Math.max(...costs))),
        `served ${served}: reservations must not be wildly above the cost`,
      );
    });
  });
}
