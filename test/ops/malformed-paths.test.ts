import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError } from '../support/http-assertions.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// A path whose id holds a malformed %-escape is an id that does not exist: 404 in the
// usual envelope, never a 500 (issue 28, finding 11), on the admin API and the console's.

const ADMIN_KEY = 'admin-malformed-paths-0123456789';

describe('malformed %-escapes in admin and console paths', () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
accounts: [{ id: acme, balance: 1 }]
`);
  });
  after(() => gateway?.close());

  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${gateway.origin}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5_000),
    });

  test('the admin API answers 404 not_found for an id with a broken escape', async () => {
    const bearer = { authorization: `Bearer ${ADMIN_KEY}` };
    for (const [method, path, body] of [
      ['GET', '/admin/v1/accounts/%E0%A4%A', undefined],
      ['GET', '/admin/v1/keys/%ZZ', undefined],
      ['PATCH', '/admin/v1/accounts/%', { name: 'x' }],
      ['POST', '/admin/v1/accounts/ac%me/topup', { amount: 1, reason: 'x' }],
    ] as const) {
      await expectError(await call(method, path, bearer, body), {
        status: 404,
        code: 'not_found',
        type: 'invalid_request_error',
      });
    }
  });

  test('so does the console API for a signed-in session', async () => {
    const signIn = await call('POST', '/console/api/session', {}, { admin_key: ADMIN_KEY });
    assert.equal(signIn.status, 201);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    await expectError(await call('GET', '/console/api/admin/accounts/%E0%A4%A', { cookie }), {
      status: 404,
      code: 'not_found',
      type: 'invalid_request_error',
    });
  });
});
