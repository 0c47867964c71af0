import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseConfigText } from '../../src/config/load-config.js';
import { startGateway, type RunningGateway } from '../../src/main.js';
import { pino } from 'pino';
import { accountWithKey, AdminClient, chat, gatewayYaml, type ChatAnswerBody } from '../support/money.js';
import { storeBackends } from '../support/store-backends.js';

// Issue 32 / PRODUCT.md decision 27: budgets that reset on the calendar, on memory, PGlite
// and PostgreSQL, with the gateway's clock moved across a window's end.

const backends = [
  { name: 'memory', store: 'memory', journalDir: '', skip: undefined as string | undefined, cleanup: async () => {} },
  ...(await storeBackends('budgets')),
];
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

/** `flat` costs 2 USD per million output tokens and nothing for input: 8 tokens = 16,000 nano-USD, reserved and charged alike. */
const FLAT_COST_NANO = 16_000;
const FLAT = { model: 'flat', max_tokens: 8 };
const usd = (nano: number) => nano / 1e9;

/** A gateway whose wall clock for budget windows is `now.value`. */
async function clockedGateway(backend: (typeof backends)[number], timeZone: string, now: { value: number }) {
  const yaml = gatewayYaml(
    { store: backend.store, journalDir: backend.journalDir },
    { extra: `budget_timezone: ${timeZone}\n` },
  ).replace(/usage: \{ journal_dir: "", /, 'usage: { ');
  const config = parseConfigText(yaml, 'test', {});
  const gateway = await startGateway(config, { port: 0, logger: pino({ level: 'silent' }), clock: () => now.value });
  return { gateway, admin: new AdminClient(gateway.baseUrl) };
}

const refusal = (answer: { status: number; body: ChatAnswerBody }) => `${answer.status} ${answer.body.error?.code}`;

/** Waits until the usage batches have committed what the key spent. */
async function committed(admin: AdminClient, keyId: string, requests: number) {
  for (let tries = 0; tries < 100; tries++) {
    if ((await admin.usage({ key: keyId })).totals.requests >= requests) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`${requests} usage rows of ${keyId} were not committed`);
}

for (const backend of backends) {
  describe(`budget windows on ${backend.name}`, { skip: backend.skip }, () => {
    const now = { value: Date.parse('2026-03-10T23:59:00Z') };
    let gateway: RunningGateway;
    let admin: AdminClient;
    before(async () => {
      ({ gateway, admin } = await clockedGateway(backend, 'UTC', now));
    });
    after(() => gateway?.close());

    for (const { period, before: last, after: first, start, resets } of [
      {
        period: 'day',
        before: '2026-03-10T23:59:00Z',
        after: '2026-03-11T00:00:01Z',
        start: '2026-03-10T00:00:00.000Z',
        resets: '2026-03-11T00:00:00.000Z',
      },
      {
        period: 'week',
        before: '2026-03-15T23:59:00Z',
        after: '2026-03-16T00:00:01Z',
        start: '2026-03-09T00:00:00.000Z',
        resets: '2026-03-16T00:00:00.000Z',
      },
      {
        period: 'month',
        before: '2026-03-31T23:59:00Z',
        after: '2026-04-01T00:00:01Z',
        start: '2026-03-01T00:00:00.000Z',
        resets: '2026-04-01T00:00:00.000Z',
      },
    ])
      test(`a ${period} budget: refused at its limit with a 402 that names the window, served again in the next window`, async () => {
        now.value = Date.parse(last);
        const { keyId, secret } = await accountWithKey(
          admin,
          { id: `budget-${period}`, balance: 10 },
          { budgets: [{ limit: usd(3 * FLAT_COST_NANO), period }] },
        );
        for (let index = 0; index < 3; index++) assert.equal((await chat(gateway.baseUrl, secret, FLAT)).status, 200);
        const refused = await chat(gateway.baseUrl, secret, FLAT);
        assert.equal(refusal(refused), '402 budget_exceeded');
        assert.equal(refused.body.error.type, 'billing_error');
        const message: string = refused.body.error.message;
        assert.match(message, new RegExp(`The ${period} budget of this API key`));
        assert.ok(message.includes(`started ${start}`), message);
        assert.ok(message.includes(`resets at ${resets}`), message);
        assert.ok(message.includes(`limit of ${usd(3 * FLAT_COST_NANO)} USD`), message);
        assert.ok(message.includes(`spent ${usd(3 * FLAT_COST_NANO)} USD`), message);
        assert.ok(message.includes('0 USD reserved'), message);
        assert.ok(message.includes(`reserve up to ${usd(FLAT_COST_NANO)} USD`), message);
        assert.ok(message.includes('output cap of 8 tokens'), message);
        await committed(admin, keyId, 3);
        const shown = (await admin.ok('GET', `/keys/${keyId}`)).budgets;
        assert.deepEqual(shown, [
          {
            period,
            limit: usd(3 * FLAT_COST_NANO),
            spent: usd(3 * FLAT_COST_NANO),
            reserved: 0,
            remaining: 0,
            window_start: start,
            resets_at: resets,
          },
        ]);
        // The next window: the old window's spend does not count.
        now.value = Date.parse(first);
        assert.equal((await chat(gateway.baseUrl, secret, FLAT)).status, 200);
        await committed(admin, keyId, 4);
        const next = (await admin.ok('GET', `/keys/${keyId}`)).budgets[0];
        assert.equal(next.window_start, resets);
        assert.equal(next.spent, usd(FLAT_COST_NANO));
        assert.equal(next.remaining, usd(2 * FLAT_COST_NANO));
      });

    test('an account budget holds for all its keys; a request settling after the boundary books into the window it started in', async () => {
      now.value = Date.parse('2026-05-31T23:59:59Z');
      const { accountId, keyId, secret } = await accountWithKey(admin, {
        id: 'budget-account',
        balance: 10,
        budgets: [{ limit: 1, period: 'month' }],
      });
      // paid-slow streams at 40 tokens a second: the clock moves while the reply streams.
      const slow = chat(gateway.baseUrl, secret, { model: 'paid-slow', max_tokens: 40 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      now.value = Date.parse('2026-06-01T00:00:05Z');
      const answer = await slow;
      assert.equal(answer.status, 200);
      await committed(admin, keyId, 1);
      const cost: number = (await admin.usage({ key: keyId })).totals.cost_nano;
      assert.ok(cost > 0);
      const june = (await admin.ok('GET', `/accounts/${accountId}`)).budgets[0];
      assert.equal(june.window_start, '2026-06-01T00:00:00.000Z');
      assert.equal(june.spent, 0, 'nothing of the May request in June');
      now.value = Date.parse('2026-05-20T12:00:00Z');
      const may = (await admin.ok('GET', `/accounts/${accountId}`)).budgets[0];
      assert.equal(may.window_start, '2026-05-01T00:00:00.000Z');
      assert.equal(may.spent, usd(cost));
      assert.equal(may.remaining, usd(1e9 - cost));
    });

    test("an end user's budget refuses that user while another end user of the same key goes on", async () => {
      now.value = Date.parse('2026-07-01T10:00:00Z');
      const { keyId, secret } = await accountWithKey(
        admin,
        { id: 'budget-users', balance: 10 },
        { end_user_budgets: [{ limit: usd(2 * FLAT_COST_NANO), period: 'day' }] },
      );
      for (let index = 0; index < 2; index++)
        assert.equal((await chat(gateway.baseUrl, secret, { ...FLAT, user: 'alice' })).status, 200);
      const refused = await chat(gateway.baseUrl, secret, { ...FLAT, user: 'alice' });
      assert.equal(refusal(refused), '402 budget_exceeded');
      assert.match(refused.body.error.message, /The day budget of this API key for the end user "alice"/);
      // The header wins over the body's user.
      const viaHeader = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${secret}`,
          'content-type': 'application/json',
          'x-switchyard-user': 'alice',
        },
        body: JSON.stringify({ ...FLAT, user: 'bob', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(viaHeader.status, 402);
      for (let index = 0; index < 2; index++)
        assert.equal((await chat(gateway.baseUrl, secret, { ...FLAT, user: 'bob' })).status, 200);
      assert.equal(refusal(await chat(gateway.baseUrl, secret, { ...FLAT, user: 'bob' })), '402 budget_exceeded');
      // A request without an end user is not subject to end users' budgets.
      assert.equal((await chat(gateway.baseUrl, secret, FLAT)).status, 200);
      await committed(admin, keyId, 5);
      const key = await admin.ok('GET', `/keys/${keyId}`);
      assert.deepEqual(key.end_user_budgets, [{ period: 'day', limit: usd(2 * FLAT_COST_NANO) }]);
      // Tomorrow alice is served again.
      now.value = Date.parse('2026-07-02T00:00:00Z');
      assert.equal((await chat(gateway.baseUrl, secret, { ...FLAT, user: 'alice' })).status, 200);
    });

    test('every 402 says what the request would reserve and what remains', async () => {
      now.value = Date.parse('2026-08-01T10:00:00Z');
      // A key at about half its limit, asking for a large output cap.
      const { secret } = await accountWithKey(
        admin,
        { id: 'why-402', balance: 10 },
        { spend_limit: usd(2 * FLAT_COST_NANO) },
      );
      assert.equal((await chat(gateway.baseUrl, secret, FLAT)).status, 200);
      const limited = await chat(gateway.baseUrl, secret, { model: 'flat', max_tokens: 100 });
      assert.equal(refusal(limited), '402 api_key_limit_exceeded');
      const limitMessage: string = limited.body.error.message;
      assert.ok(limitMessage.includes(`(${usd(2 * FLAT_COST_NANO)} USD)`), limitMessage);
      assert.ok(limitMessage.includes('reserve up to 0.0002 USD'), limitMessage);
      assert.ok(limitMessage.includes('output cap of 100 tokens'), limitMessage);
      assert.ok(limitMessage.includes(`${usd(FLAT_COST_NANO)} USD of the limit remains`), limitMessage);
      assert.match(limitMessage, /a prompt of \d+ tokens/);
      const poor = await accountWithKey(admin, { id: 'why-402-balance', balance: usd(FLAT_COST_NANO) });
      const broke = await chat(gateway.baseUrl, poor.secret, { model: 'flat', max_tokens: 100 });
      assert.equal(refusal(broke), '402 insufficient_balance');
      const balanceMessage: string = broke.body.error.message;
      assert.ok(balanceMessage.includes('reserve up to 0.0002 USD'), balanceMessage);
      assert.ok(balanceMessage.includes(`${usd(FLAT_COST_NANO)} USD remains`), balanceMessage);
    });

    test('a budget refusal in the shape of the Messages and Responses doors', async () => {
      now.value = Date.parse('2026-09-01T10:00:00Z');
      const { secret } = await accountWithKey(
        admin,
        { id: 'budget-doors', balance: 10 },
        { budgets: [{ limit: 0, period: 'day' }] },
      );
      const messages = await fetch(`${gateway.baseUrl.replace(/\/v1$/, '')}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': secret, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'flat', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(messages.status, 402);
      const anthropic = (await messages.json()) as { type: string; error: { type: string; message: string } };
      assert.equal(anthropic.type, 'error');
      assert.match(anthropic.error.message, /The day budget of this API key .* resets at 2026-09-02T00:00:00.000Z/);
      const responses = await fetch(`${gateway.baseUrl}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'flat', max_output_tokens: 16, input: 'hi' }),
      });
      assert.equal(responses.status, 402);
      const openai = (await responses.json()) as { error: { code: string; message: string } };
      assert.equal(openai.error.code, 'budget_exceeded');
      assert.match(openai.error.message, /resets at 2026-09-02T00:00:00.000Z/);
    });
  });

  describe(`a month in a zone that is not UTC on ${backend.name}`, { skip: backend.skip }, () => {
    const now = { value: Date.parse('2026-10-31T23:30:00-07:00') };
    let gateway: RunningGateway;
    let admin: AdminClient;
    before(async () => {
      ({ gateway, admin } = await clockedGateway(backend, 'America/Los_Angeles', now));
    });
    after(() => gateway?.close());

    test('America/Los_Angeles: October ends at local midnight (07:00 UTC), not at UTC midnight', async () => {
      const { keyId, secret } = await accountWithKey(
        admin,
        { id: 'budget-la', balance: 10 },
        { budgets: [{ limit: usd(2 * FLAT_COST_NANO), period: 'month' }] },
      );
      // 06:30 UTC on November 1st is still October in Los Angeles.
      for (let index = 0; index < 2; index++) assert.equal((await chat(gateway.baseUrl, secret, FLAT)).status, 200);
      const refused = await chat(gateway.baseUrl, secret, FLAT);
      assert.equal(refusal(refused), '402 budget_exceeded');
      assert.ok(refused.body.error.message.includes('started 2026-10-01T07:00:00.000Z'), refused.body.error.message);
      assert.ok(refused.body.error.message.includes('resets at 2026-11-01T07:00:00.000Z'), refused.body.error.message);
      now.value = Date.parse('2026-11-01T00:00:01-07:00');
      assert.equal((await chat(gateway.baseUrl, secret, FLAT)).status, 200);
      await committed(admin, keyId, 3);
      const november = (await admin.ok('GET', `/keys/${keyId}`)).budgets[0];
      assert.equal(november.window_start, '2026-11-01T07:00:00.000Z');
      // November 1st is in daylight time, December 1st in standard time: 08:00 UTC.
      assert.equal(november.resets_at, '2026-12-01T08:00:00.000Z');
      assert.equal(november.spent, usd(FLAT_COST_NANO));
    });
  });
}
