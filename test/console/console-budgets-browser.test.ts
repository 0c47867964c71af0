import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { admin } from '../support/admin-client.js';
import { browserSkipReason, launchBrowser, screenshotDirectory } from '../support/browser.js';
import { ensureConsoleBundle } from '../support/console-bundle.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 32 item 5: the Keys and Accounts pages show a bar per budget window, with what it
// spent of its limit, what remains and when it resets, in a real browser.

const ADMIN_KEY = 'budgets-admin-key-0123456789';
const YAML = `
admin_key: ${ADMIN_KEY}
nodes: [{ id: sim, provider: simulated }]
models:
  - { id: flat, pricing: { input: 0, output: 2 }, routes: [{ node: sim }] }
`;

describe('budget windows in the console', { skip: browserSkipReason(), timeout: 120_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  const shots = screenshotDirectory('console-budgets');

  before(async () => {
    await ensureConsoleBundle();
    gateway = await startTestGateway(YAML);
    browser = await launchBrowser();
    page = await (await browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 900 } })).newPage();
    page.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  test('a key with a monthly and a daily budget, and an account with a weekly one: a bar per window with its reset time', async () => {
    await admin(gateway.origin, 'POST', '/accounts', ADMIN_KEY, {
      id: 'team',
      balance: 10,
      budgets: [{ limit: 50, period: 'week' }],
    });
    const created = (
      await admin(gateway.origin, 'POST', '/keys', ADMIN_KEY, {
        account: 'team',
        name: 'team key',
        budgets: [
          { limit: 200, period: 'month' },
          { limit: 0.001, period: 'day' },
        ],
      })
    ).body as { key: string; budgets: Array<{ period: string; resets_at: string }> };
    const answer = await postChat(gateway.baseUrl, created.key, chatBody('flat', { max_tokens: 100 }));
    assert.equal(answer.status, 200);
    await answer.text();

    await page.goto(`${gateway.origin}/console`);
    await page.getByLabel('Admin key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'Keys', exact: true }).click();
    const row = page.locator('tr', { hasText: 'team key' });
    const bars = row.getByTestId('budget-window');
    await bars.first().waitFor();
    assert.equal(await bars.count(), 2);
    assert.equal(await row.getByTestId('key-budgets').getByRole('meter').count(), 2);
    const day = row.locator('[data-period="day"]');
    assert.match((await day.textContent()) ?? '', /Day .*\/ \$0\.00.*remaining.*resets/);
    const dayResets = created.budgets.find((window) => window.period === 'day')?.resets_at;
    assert.equal(await day.locator('time').getAttribute('datetime'), dayResets);
    // The day's bar is filled by the request's spend (0.0002 of 0.001 USD: a fifth).
    const meter = day.getByRole('meter');
    await page.waitForFunction(
      (element) => Number(element?.getAttribute('aria-valuenow')) > 0,
      await meter.elementHandle(),
    );
    await page.screenshot({ path: join(shots, 'keys.png'), fullPage: true });

    await page.getByRole('navigation').getByRole('link', { name: 'Accounts', exact: true }).click();
    const account = page.locator('tr[data-account="team"]');
    const week = account.getByTestId('account-budgets').locator('[data-period="week"]');
    await week.waitFor();
    assert.match((await week.textContent()) ?? '', /Week .*\/ \$50\.00.*remaining.*resets/);
    assert.equal(await week.getByRole('meter').count(), 1);
    await page.screenshot({ path: join(shots, 'accounts.png'), fullPage: true });
  });

  test("a key with a daily budget per end user opens its end users' windows: a bar each", async () => {
    const created = (
      await admin(gateway.origin, 'POST', '/keys', ADMIN_KEY, {
        account: 'team',
        name: 'shared key',
        end_user_budgets: [{ limit: 10, period: 'day' }],
      })
    ).body as { key: string; id: string };
    // alice spends twice what bob does (each request: 100 tokens at 2 USD a million).
    for (const user of ['alice', 'alice', 'bob']) {
      const answer = await postChat(gateway.baseUrl, created.key, chatBody('flat', { max_tokens: 100, user }));
      assert.equal(answer.status, 200);
      await answer.text();
    }

    await page.getByRole('navigation').getByRole('link', { name: 'Keys', exact: true }).click();
    const row = page.locator(`tr[data-key="${created.id}"]`);
    assert.match((await row.getByTestId('end-user-budget').textContent()) ?? '', /Per end user, Day: \$10\.00/);
    const open = row.getByRole('button', { name: 'End users' });
    assert.equal(await open.getAttribute('aria-expanded'), 'false');
    await open.click();
    assert.equal(await open.getAttribute('aria-expanded'), 'true');
    const table = page.getByRole('table', { name: /^End users of / });
    await table.waitFor();
    const users = table.locator('tbody tr');
    await users.nth(1).waitFor();
    assert.equal(await users.count(), 2);
    assert.deepEqual(await users.evaluateAll((rows) => rows.map((tr) => tr.getAttribute('data-end-user'))), [
      'alice',
      'bob',
    ]);
    // Each bar says what the usage ledger booked for that end user, of the 10 USD a day.
    const usage = (await admin(gateway.origin, 'GET', `/usage?key=${created.id}&group_by=end_user&limit=0`, ADMIN_KEY))
      .body as { end_users: Array<{ end_user: string; cost: number }> };
    const cost = new Map(usage.end_users.map((group) => [group.end_user, group.cost]));
    assert.ok((cost.get('alice') ?? 0) > (cost.get('bob') ?? 0) && (cost.get('bob') ?? 0) > 0);
    for (const user of ['alice', 'bob']) {
      const day = table.locator(`tr[data-end-user="${user}"] [data-period="day"]`);
      assert.match((await day.textContent()) ?? '', /Day \$0\.000\d+ \/ \$10\.00 · \$10\.00 remaining · resets/);
      const meter = day.getByRole('meter');
      assert.equal(Number(await meter.getAttribute('aria-valuenow')), cost.get(user));
      assert.equal(Number(await meter.getAttribute('aria-valuemax')), 10);
    }
    const bob = table.locator('tr[data-end-user="bob"] [data-period="day"]');
    const resets = new Date(
      Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1),
    );
    assert.equal(await bob.locator('time').getAttribute('datetime'), resets.toISOString());
    await page.screenshot({ path: join(shots, 'key-end-users.png'), fullPage: true });
    await open.click();
    assert.equal(await table.count(), 0);
  });
});
