import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { Client } from 'undici';
import { expectError } from '../support/http-assertions.js';
import { accountWithKey, ADMIN_KEY, AdminClient, gatewayYaml, openaiClient, rejectsWith } from '../support/money.js';
import { storeBackends } from '../support/store-backends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 4: every 401/402/403 row of spec 7.2, GET /v1/models per key, the admin API's own
// guard, and the key lifecycle, against PGlite and PostgreSQL.

const backends = await storeBackends('access');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

const HELLO = [{ role: 'user' as const, content: 'Hello there, gateway' }];

for (const backend of backends) {
  describe(`keys, balances and policy on ${backend.name}`, { skip: backend.skip }, () => {
    let gateway: TestGateway;
    let admin: AdminClient;
    before(async () => {
      gateway = await startTestGateway(gatewayYaml(backend));
      admin = new AdminClient(gateway.baseUrl);
    });
    after(() => gateway?.close());

    test('401: missing key → authentication_required; unknown key → invalid_api_key', async () => {
      const url = `${gateway.baseUrl}/chat/completions`;
      const body = JSON.stringify({ model: 'free', messages: HELLO });
      await expectError(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }), {
        status: 401,
        code: 'authentication_required',
        type: 'authentication_error',
      });
      await expectError(
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Basic abc' },
          body,
        }),
        {
          status: 401,
          code: 'authentication_required',
          type: 'authentication_error',
        },
      );
      await rejectsWith(
        openaiClient(gateway.baseUrl, 'sk-not-a-real-key').chat.completions.create({ model: 'free', messages: HELLO }),
        401,
        'invalid_api_key',
        'authentication_error',
      );
      await rejectsWith(
        openaiClient(gateway.baseUrl, 'sk-not-a-real-key').models.list(),
        401,
        'invalid_api_key',
        'authentication_error',
      );
    });

    test('key lifecycle: secret shown once, listed by prefix only; block → 401 at once, unblock → works, revoke is final, delete hides it', async () => {
      const { accountId, keyId, secret } = await accountWithKey(admin, { id: 'life', balance: 1 }, { name: 'laptop' });
      const client = openaiClient(gateway.baseUrl, secret);
      const ok = () => client.chat.completions.create({ model: 'paid', messages: HELLO, max_tokens: 5 });
      assert.equal((await ok()).object, 'chat.completion');

      const listed = await admin.ok('GET', `/keys?account=${accountId}`);
      assert.equal(listed.data.length, 1);
      const [entry] = listed.data;
      assert.equal(entry.id, keyId);
      assert.ok(secret.startsWith(entry.prefix), 'the prefix is the start of the secret');
      assert.ok(entry.prefix.length < secret.length / 2, `a short prefix, got ${entry.prefix}`);
      const everything = JSON.stringify([
        listed,
        await admin.ok('GET', `/keys/${keyId}`),
        await admin.ok('GET', `/accounts/${accountId}`),
        await admin.ok('GET', '/keys'),
      ]);
      assert.ok(!everything.includes(secret), 'the secret appears in no listing');
      assert.equal(
        (await admin.ok('GET', `/keys?prefix=${encodeURIComponent(entry.prefix)}`)).data[0].id,
        keyId,
        'found by its prefix',
      );
      assert.equal(
        (await admin.ok('GET', `/keys/${encodeURIComponent(entry.prefix)}`)).id,
        keyId,
        'shown by its prefix',
      );

      assert.equal((await admin.ok('POST', `/keys/${keyId}/block`)).status, 'blocked');
      await rejectsWith(ok(), 401, 'invalid_api_key', 'authentication_error');
      await rejectsWith(client.models.list(), 401, 'invalid_api_key', 'authentication_error');
      assert.equal((await admin.ok('POST', `/keys/${keyId}/unblock`)).status, 'active');
      assert.equal((await ok()).object, 'chat.completion');

      assert.equal((await admin.ok('POST', `/keys/${keyId}/revoke`)).status, 'revoked');
      await rejectsWith(ok(), 401, 'invalid_api_key', 'authentication_error');
      const unrevoke = await admin.call('POST', `/keys/${keyId}/unblock`);
      assert.equal(unrevoke.status, 409, JSON.stringify(unrevoke.body));
      assert.equal(unrevoke.body.error.code, 'conflict');
      await rejectsWith(ok(), 401, 'invalid_api_key', 'authentication_error');

      assert.equal((await admin.ok('DELETE', `/keys/${keyId}`)).status, 'deleted');
      await rejectsWith(ok(), 401, 'invalid_api_key', 'authentication_error');
      assert.equal((await admin.ok('GET', `/keys?account=${accountId}`)).data.length, 0, 'a deleted key is not listed');
      assert.equal((await admin.call('GET', `/keys/${keyId}`)).status, 404, 'nor shown');
      const withDeleted = await admin.ok('GET', `/keys?account=${accountId}&include_deleted=true`);
      assert.deepEqual(
        withDeleted.data.map((key: { status: string }) => key.status),
        ['deleted'],
      );
      assert.equal((await admin.call('POST', `/keys/${keyId}/unblock`)).status, 404, 'nothing brings it back');
    });

    test('one keep-alive connection changing keys: each request is its own key; a key blocked or deleted meanwhile is refused on it', async () => {
      const first = await accountWithKey(admin, { id: 'conn-a', balance: 1 });
      const second = await accountWithKey(admin, { id: 'conn-b', balance: 1 });
      const connection = new Client(gateway.baseUrl.replace(/\/v1$/, ''), { pipelining: 1 });
      let connects = 0;
      connection.on('connect', () => connects++);
      try {
        const send = async (secret: string) => {
          const response = await connection.request({
            method: 'POST',
            path: '/v1/chat/completions',
            headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'paid', messages: HELLO, max_tokens: 3 }),
          });
          const body = (await response.body.json()) as { error?: { code: string } };
          return {
            status: response.statusCode,
            code: body.error?.code,
            requestId: response.headers['x-request-id'] as string,
          };
        };
        const served: Array<{ requestId: string; account: string }> = [];
        for (const [secret, account] of [
          [first.secret, first.accountId],
          [second.secret, second.accountId],
          [first.secret, first.accountId],
        ] as const) {
          const answer = await send(secret);
          assert.equal(answer.status, 200);
          served.push({ requestId: answer.requestId, account });
        }
        assert.deepEqual(await send(`${first.secret}x`).then(({ status, code }) => [status, code]), [
          401,
          'invalid_api_key',
        ]);
        assert.equal((await send(first.secret)).status, 200);
        await admin.ok('POST', `/keys/${first.keyId}/block`);
        assert.deepEqual(
          await send(first.secret).then(({ status, code }) => [status, code]),
          [401, 'invalid_api_key'],
          'blocked: refused on the same connection',
        );
        await admin.ok('POST', `/keys/${first.keyId}/unblock`);
        assert.equal((await send(first.secret)).status, 200);
        await admin.ok('DELETE', `/keys/${first.keyId}`);
        assert.deepEqual(
          await send(first.secret).then(({ status, code }) => [status, code]),
          [401, 'invalid_api_key'],
          'deleted: refused on the same connection',
        );
        assert.equal((await send(second.secret)).status, 200);
        assert.equal(connects, 1, 'all on one connection');
        const rows = (await admin.usage({ key: second.keyId })).data as Array<{ request_id: string; account: string }>;
        assert.ok(
          rows.some((row) => row.request_id === served[1]?.requestId && row.account === second.accountId),
          'the second key was charged for its request',
        );
        assert.ok(
          !rows.some((row) => row.request_id === served[0]?.requestId || row.request_id === served[2]?.requestId),
          'and only for its own',
        );
      } finally {
        await connection.close();
      }
    });

    test('a deleted active key is refused at once (401), without a block first', async () => {
      const { keyId, secret } = await accountWithKey(admin, { id: 'del', balance: 1 });
      const client = openaiClient(gateway.baseUrl, secret);
      assert.equal(
        (await client.chat.completions.create({ model: 'free', messages: HELLO })).object,
        'chat.completion',
      );
      await admin.ok('DELETE', `/keys/${keyId}`);
      await rejectsWith(
        client.chat.completions.create({ model: 'free', messages: HELLO }),
        401,
        'invalid_api_key',
        'authentication_error',
      );
    });

    test('402 insufficient_balance: a paid model at balance 0 or below the estimate; free models still work on an empty balance', async () => {
      const empty = await accountWithKey(admin, { id: 'empty', balance: 0 });
      const client = openaiClient(gateway.baseUrl, empty.secret);
      await rejectsWith(
        client.chat.completions.create({ model: 'paid', messages: HELLO, max_tokens: 1 }),
        402,
        'insufficient_balance',
        'billing_error',
      );
      const free = await client.chat.completions.create({ model: 'free', messages: HELLO });
      assert.ok(free.usage !== undefined && free.usage.completion_tokens > 0);

      // Negative balance after an adjustment: still refused, free still served.
      await admin.ok('POST', `/accounts/${empty.accountId}/adjust`, { amount: -0.5, reason: 'chargeback' });
      await rejectsWith(
        client.chat.completions.create({ model: 'paid', messages: HELLO, max_tokens: 1 }),
        402,
        'insufficient_balance',
        'billing_error',
      );
      assert.equal(
        (await client.chat.completions.create({ model: 'free', messages: HELLO, stream: false })).object,
        'chat.completion',
      );

      // 0.0001 USD covers ~10 output tokens at 1.99 USD/M but not 1000 (the worst-case estimate).
      const poor = await accountWithKey(admin, { id: 'poor', balance: 0.0001 });
      const poorClient = openaiClient(gateway.baseUrl, poor.secret);
      await rejectsWith(
        poorClient.chat.completions.create({ model: 'paid', messages: HELLO, max_tokens: 1000 }),
        402,
        'insufficient_balance',
        'billing_error',
      );
      // No max_tokens: the model's cap (context length) is the estimate.
      await rejectsWith(
        poorClient.chat.completions.create({ model: 'paid', messages: HELLO }),
        402,
        'insufficient_balance',
        'billing_error',
      );
      const small = await poorClient.chat.completions.create({ model: 'paid', messages: HELLO, max_tokens: 10 });
      assert.equal(small.usage?.completion_tokens, 10);
      // A refused request reached no node: no usage row.
      const usage = await admin.usage({ account: poor.accountId });
      assert.equal(usage.totals.requests, 1);
      assert.equal(
        (await admin.usage({ account: empty.accountId })).data.every((row: { model: string }) => row.model === 'free'),
        true,
      );
    });

    test('402 api_key_limit_exceeded once the key has spent up to its limit; the account still has money', async () => {
      // 0.0002 USD: each request (max_tokens 10 at 1.99 USD/M output) costs ~0.00002.
      const { keyId, accountId, secret } = await accountWithKey(
        admin,
        { id: 'limit', balance: 10 },
        { spend_limit: 0.0002 },
      );
      const client = openaiClient(gateway.baseUrl, secret);
      let served = 0;
      let refusal: InstanceType<typeof OpenAI.APIError> | undefined;
      for (let i = 0; i < 30 && refusal === undefined; i++) {
        try {
          await client.chat.completions.create({ model: 'paid', messages: HELLO, max_tokens: 10 });
          served++;
        } catch (error) {
          refusal = error as InstanceType<typeof OpenAI.APIError>;
        }
      }
      assert.ok(refusal instanceof OpenAI.APIError, 'the limit was reached within 30 requests');
      assert.equal(refusal.status, 402);
      assert.equal(refusal.code, 'api_key_limit_exceeded');
      assert.equal(refusal.type, 'billing_error');
      assert.ok(served >= 5 && served <= 10, `served ${served}`);
      const usage = await admin.usage({ key: keyId });
      assert.equal(usage.totals.requests, served);
      const spent = await admin.spentNano(keyId);
      assert.equal(spent, usage.totals.cost_nano);
      assert.ok(spent <= 200_000, `spent ${spent} ≤ limit`);
      // Free models reserve nothing and cost nothing: still served at the limit.
      assert.equal(
        (await client.chat.completions.create({ model: 'free', messages: HELLO })).object,
        'chat.completion',
      );
      // Another key of the same account is not limited by this one.
      const other = await admin.ok('POST', '/keys', { account: accountId });
      assert.equal(
        (
          await openaiClient(gateway.baseUrl, other.key).chat.completions.create({
            model: 'paid',
            messages: HELLO,
            max_tokens: 10,
          })
        ).object,
        'chat.completion',
      );
      // Raising the limit lets the key spend again at once.
      await admin.ok('PATCH', `/keys/${keyId}`, { spend_limit: 1 });
      assert.equal(
        (await client.chat.completions.create({ model: 'paid', messages: HELLO, max_tokens: 10 })).object,
        'chat.completion',
      );
    });

    test('403 access_denied (permission_error): model outside the account or the key; streaming off; effort above the ceiling', async () => {
      const { accountId, keyId, secret } = await accountWithKey(
        admin,
        { id: 'policy', balance: 5, allowed_models: ['paid', 'thinker', 'free'] },
        { allowed_models: ['paid', 'thinker'] },
      );
      const client = openaiClient(gateway.baseUrl, secret);
      await rejectsWith(
        client.chat.completions.create({ model: 'flat', messages: HELLO }),
        403,
        'access_denied',
        'permission_error',
        'model',
      );
      await rejectsWith(
        client.chat.completions.create({ model: 'free', messages: HELLO }),
        403,
        'access_denied',
        'permission_error',
        'model',
      );
      assert.equal(
        (await client.chat.completions.create({ model: 'paid', messages: HELLO, max_tokens: 5 })).object,
        'chat.completion',
      );

      // Streaming switched off on the account.
      await admin.ok('PATCH', `/accounts/${accountId}`, { policy: { streaming: false } });
      await rejectsWith(
        client.chat.completions.create({ model: 'paid', messages: HELLO, max_tokens: 5, stream: true }),
        403,
        'access_denied',
        'permission_error',
        'stream',
      );
      assert.equal(
        (await client.chat.completions.create({ model: 'paid', messages: HELLO, max_tokens: 5 })).object,
        'chat.completion',
      );
      await admin.ok('PATCH', `/accounts/${accountId}`, { policy: null });
      const stream = await client.chat.completions.create({
        model: 'paid',
        messages: HELLO,
        max_tokens: 5,
        stream: true,
      });
      let chunks = 0;
      for await (const _chunk of stream) chunks++;
      assert.ok(chunks > 0);

      // Reasoning ceiling on the key: an explicit effort above it is refused, the default is lowered to it.
      await admin.ok('PATCH', `/keys/${keyId}`, { policy: { max_reasoning_effort: 'low' } });
      await rejectsWith(
        client.chat.completions.create({ model: 'thinker', messages: HELLO, reasoning_effort: 'high' }),
        403,
        'access_denied',
        'permission_error',
        'reasoning_effort',
      );
      await rejectsWith(
        client.chat.completions.create({ model: 'thinker', messages: HELLO, reasoning_effort: 'medium' }),
        403,
        'access_denied',
        'permission_error',
        'reasoning_effort',
      );
      const low = await client.chat.completions.create({ model: 'thinker', messages: HELLO, reasoning_effort: 'low' });
      const lowered = await client.chat.completions.create({ model: 'thinker', messages: HELLO });
      assert.equal(
        lowered.usage?.completion_tokens_details?.reasoning_tokens,
        low.usage?.completion_tokens_details?.reasoning_tokens,
        'the medium default ran at low',
      );

      // Streaming off on the key only.
      await admin.ok('PATCH', `/keys/${keyId}`, { policy: { streaming: false } });
      await rejectsWith(
        client.chat.completions.create({ model: 'paid', messages: HELLO, stream: true }),
        403,
        'access_denied',
        'permission_error',
        'stream',
      );
      // Refused requests are not booked.
      const usage = await admin.usage({ key: keyId });
      assert.equal(usage.totals.requests, 5);
    });

    test('GET /v1/models lists only what the key (and its account) may use', async () => {
      const open = await accountWithKey(admin, { id: 'models-open', balance: 1 });
      const all = (await openaiClient(gateway.baseUrl, open.secret).models.list()).data.map((model) => model.id).sort();
      assert.deepEqual(all, ['flat', 'free', 'paid', 'paid-slow', 'thinker']);

      const narrow = await accountWithKey(
        admin,
        { id: 'models-narrow', balance: 1, allowed_models: ['paid', 'free', 'thinker'] },
        { allowed_models: ['free', 'thinker', 'flat'] },
      );
      const listed = (await openaiClient(gateway.baseUrl, narrow.secret).models.list()).data;
      assert.deepEqual(listed.map((model) => model.id).sort(), ['free', 'thinker']);
      const thinker = listed.find((model) => model.id === 'thinker') as unknown as Record<string, unknown>;
      assert.equal(thinker.object, 'model');
      assert.equal(thinker.supports_reasoning, true);
      assert.deepEqual((thinker.pricing as Record<string, unknown>).reasoning, 3.25);

      // A change through the admin API shows in the next listing.
      await admin.ok('PATCH', `/keys/${narrow.keyId}`, { allowed_models: null });
      const widened = (await openaiClient(gateway.baseUrl, narrow.secret).models.list()).data
        .map((model) => model.id)
        .sort();
      assert.deepEqual(widened, ['free', 'paid', 'thinker']);
    });

    test('admin API: 401 without or with a wrong admin key', async () => {
      const missing = await new AdminClient(gateway.baseUrl, null).call('GET', '/accounts');
      assert.equal(missing.status, 401);
      assert.equal(missing.body.error.code, 'authentication_required');
      const wrong = await new AdminClient(gateway.baseUrl, `${ADMIN_KEY}x`).call('GET', '/accounts');
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.error.code, 'invalid_api_key');
      const writing = await new AdminClient(gateway.baseUrl, 'not-the-admin-key').call('POST', '/accounts', {
        id: 'intruder',
        balance: 1000,
      });
      assert.equal(writing.status, 401);
      assert.equal((await admin.call('GET', '/accounts/intruder')).status, 404, 'nothing was created');
      // An API key is not an admin key.
      const user = await accountWithKey(admin, { id: 'not-admin', balance: 1 });
      assert.equal((await new AdminClient(gateway.baseUrl, user.secret).call('GET', '/usage')).status, 401);
    });
  });
}

test('admin API: 403 access_denied when admin_key is not configured', async (t) => {
  const gateway = await startTestGateway(
    gatewayYaml({ store: 'memory', journalDir: '/nonexistent' }).replace(/^admin_key:.*\n/m, ''),
  );
  t.after(() => gateway.close());
  for (const adminKey of [null, ADMIN_KEY]) {
    const answer = await new AdminClient(gateway.baseUrl, adminKey).call('GET', '/accounts');
    assert.equal(answer.status, 403);
    assert.equal(answer.body.error.code, 'access_denied');
    assert.equal(answer.body.error.type, 'permission_error');
  }
});
