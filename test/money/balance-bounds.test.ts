import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { admin } from '../support/admin-client.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 28 finding 11: money is nano-USD in JavaScript numbers, exact below 2^53 (about 9
// million USD). Balances, amounts and spend limits are bounded at 1,000,000 USD: a top-up
// past it is a 400 naming `amount`, and nothing is booked.

const ADMIN_KEY = 'admin-balance-bounds-0123456789';

describe('balances stay exact: amounts and balances are bounded', () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
accounts: [{ id: acme, balance: 999999 }]
`);
  });
  after(() => gateway?.close());

  const call = (method: string, path: string, body?: unknown) => admin(gateway.origin, method, path, ADMIN_KEY, body);
  const errorOf = (body: unknown) => (body as { error: { code: string; param: string | null; message: string } }).error;

  test('a top-up that would take the balance past 1,000,000 USD is 400 naming amount; nothing is booked', async () => {
    const over = await call('POST', '/accounts/acme/topup', { amount: 1.000000001, reason: 'too much' });
    assert.equal(over.status, 400, JSON.stringify(over.body));
    assert.equal(errorOf(over.body).code, 'validation_failed');
    assert.equal(errorOf(over.body).param, 'amount');
    assert.match(errorOf(over.body).message, /1000000 USD/);
    const exact = await call('POST', '/accounts/acme/topup', { amount: 1, reason: 'to the top' });
    assert.equal(exact.status, 200, JSON.stringify(exact.body));
    assert.equal((exact.body as { balance: number }).balance, 1_000_000);
    const ledger = await call('GET', '/accounts/acme/ledger');
    const reasons = (ledger.body as { data: Array<{ reason: string }> }).data.map((entry) => entry.reason);
    assert.equal(reasons[0], 'to the top');
    assert.ok(!reasons.includes('too much'), 'the refused top-up left no entry');
  });

  test('amounts, starting balances and spend limits above the bound are 400 naming their field', async () => {
    for (const [path, body, param] of [
      ['/accounts/acme/topup', { amount: 2e6, reason: 'x' }, 'amount'],
      ['/accounts/acme/adjust', { amount: -2e6, reason: 'x' }, 'amount'],
      ['/accounts', { id: 'whale', balance: 1e7 }, 'balance'],
      ['/keys', { account: 'acme', spend_limit: 1e9 }, 'spend_limit'],
    ] as const) {
      const answer = await call('POST', path, body);
      assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
      assert.equal(errorOf(answer.body).param, param, path);
    }
    assert.equal((await call('GET', '/accounts/whale')).status, 404, 'nothing was created');
  });
});
