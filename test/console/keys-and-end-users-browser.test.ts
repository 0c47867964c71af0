import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { admin } from '../support/admin-client.js';
import { browserSkipReason, launchBrowser, screenshotDirectory } from '../support/browser.js';
import { ensureConsoleBundle } from '../support/console-bundle.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// Issue 32 item 5 in a real browser: the Keys page shows each key's expiry and rotates a key
// (the new secret once, the old secret's end), and the Usage page filters by end user and
// shows a total per end user.

const ADMIN_KEY = 'browser-keys-admin-key-0123456789';
const STEP_MS = 15_000;

const YAML = `
admin_key: ${ADMIN_KEY}
usage: { flush_interval_ms: 20 }
nodes: [{ id: sim, provider: simulated, simulated: { first_byte_ms: 5, tokens_per_second: 2000 } }]
models: [{ id: chat, pricing: { input: 0.2, output: 0.6 }, routes: [{ node: sim }] }]
`;

const skip = browserSkipReason();

async function chatAs(gateway: TestGateway, secret: string, endUser?: string): Promise<number> {
  const response = await postChat(gateway.baseUrl, secret, chatBody('chat', { max_tokens: 8 }), {
    headers: endUser === undefined ? {} : { 'x-switchyard-user': endUser },
  });
  await response.text();
  return response.status;
}

describe('keys and end users in the console (Chromium)', { skip, timeout: 180_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  const shots = screenshotDirectory('console-keys');
  const pageErrors: string[] = [];
  let secret = '';
  let keyId = '';

  const shoot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();

  before(async () => {
    await ensureConsoleBundle();
    gateway = await startTestGateway(YAML);
    await admin(gateway.origin, 'POST', '/accounts', ADMIN_KEY, { id: 'team', balance: 20 });
    const created = (await admin(gateway.origin, 'POST', '/keys', ADMIN_KEY, { account: 'team', name: 'team key' }))
      .body as { id: string; key: string };
    secret = created.key;
    keyId = created.id;
    // Two developers on the shared key, and one request that names nobody.
    for (const endUser of ['alice', 'alice', 'bob', undefined])
      assert.equal(await chatAs(gateway, secret, endUser), 200);
    browser = await launchBrowser();
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 40[13]/.test(message.text())) pageErrors.push(message.text());
    });
    process.stdout.write(`console screenshots: ${shots}\n`);
    await page.goto(`${gateway.origin}/console`);
    await page.getByLabel('Admin key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview');
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  test('the Usage page totals per end user and filters to one', async () => {
    await nav('Usage');
    await heading('Usage');
    const totals = page.getByTestId('end-user-totals');
    await totals.waitFor();
    const requestsOf = async (endUser: string) =>
      (await totals.locator(`tr[data-end-user="${endUser}"] td`).first().textContent())?.trim();
    assert.equal(await requestsOf('alice'), '2');
    assert.equal(await requestsOf('bob'), '1');
    assert.equal(await requestsOf(''), '1', 'the request that named nobody is its own line');
    await shoot('usage-per-end-user');

    await totals.getByRole('button', { name: 'alice' }).click();
    await page.getByTestId('usage-totals').getByText('2 requests').waitFor();
    assert.equal(await page.getByLabel('End user', { exact: true }).inputValue(), 'alice');
    await waitFor(
      async () => {
        const cells = await page.getByTestId('row-end-user').allTextContents();
        return cells.length === 2 && cells.every((cell) => cell === 'alice');
      },
      STEP_MS,
      { what: "only alice's rows" },
    );
    // Typed in by hand, the filter works the same.
    await page.getByLabel('End user', { exact: true }).fill('bob');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByTestId('usage-totals').getByText('1 requests').waitFor();
  });

  test('the Keys page rotates a key: the new secret once, the old one working until its end', async () => {
    await nav('Keys');
    await heading('Keys');
    const row = page.locator(`tr[data-key="${keyId}"]`);
    await row.getByTestId('key-expiry').getByText('never').waitFor();
    await row.getByRole('button', { name: 'Rotate' }).click();
    await row.getByLabel('The old key keeps working for').selectOption({ label: '5 minutes' });
    const rotatedAt = Date.now();
    await row.getByRole('button', { name: 'Rotate' }).click();
    const shown = page.getByTestId('new-key-secret');
    const newSecret = ((await shown.textContent()) ?? '').trim();
    assert.match(newSecret, /^sk-sy-[\w-]{20,}$/);
    assert.notEqual(newSecret, secret);
    await page
      .getByTestId('secret-note')
      .getByText(/The old key works until/)
      .waitFor();
    await row
      .getByTestId('old-key-end')
      .getByText(/old key sk-sy-.*works until/)
      .waitFor();
    await shoot('keys-rotated');

    const shownKey = (await admin(gateway.origin, 'GET', `/keys/${keyId}`, ADMIN_KEY)).body as {
      previous_expires_at: string;
    };
    const graceMs = Date.parse(shownKey.previous_expires_at) - rotatedAt;
    assert.ok(graceMs > 290_000 && graceMs <= 310_000, `a grace of five minutes, got ${graceMs} ms`);
    assert.equal(await chatAs(gateway, newSecret), 200, 'the new secret works');
    assert.equal(await chatAs(gateway, secret), 200, 'the old one too, in its grace');
    await page.getByRole('button', { name: 'Done, I saved it' }).click();
    await shown.waitFor({ state: 'detached' });
    await page.reload();
    await heading('Keys');
    assert.ok(!(await page.content()).includes(newSecret), 'the new secret is not shown again');
  });

  test('a key made with an expiry in the past shows expired and is refused', async () => {
    await page.getByLabel('Name', { exact: true }).fill('short-lived key');
    await page.getByLabel('Expires at (empty: never)').fill('2024-01-01T00:00');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const expiredSecret = ((await page.getByTestId('new-key-secret').textContent()) ?? '').trim();
    const row = page.locator('tr', { hasText: 'short-lived key' });
    await row.getByTestId('key-expiry').getByText('expired').waitFor();
    await shoot('keys-expired');
    const refused = await postChat(gateway.baseUrl, expiredSecret, chatBody('chat', { max_tokens: 4 }));
    const body = (await refused.json()) as { error: { code: string; message: string } };
    assert.equal(refused.status, 401);
    assert.equal(body.error.code, 'invalid_api_key');
    assert.match(body.error.message, /expired at 2024-01-01T/);
    assert.deepEqual(pageErrors, []);
  });
});
