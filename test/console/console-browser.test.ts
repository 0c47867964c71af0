import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { UsageRow } from '../../src/store/records.js';
import { admin, listNodes } from '../support/admin-client.js';
import { browserSkipReason, launchBrowser, screenshotDirectory } from '../support/browser.js';
import { ensureConsoleBundle } from '../support/console-bundle.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// The console in a real browser (Debian's Chromium, headless, driven by playwright-core)
// against a real gateway with simulated nodes. The tests run in order on one page, as one
// operator's first session: a wrong key, signing in, an account and a key, a playground
// stream seen on the overview and in usage, a top-up, a drained node, a usage filter and
// its CSV. Each page's screenshot is saved under test-output/console (path printed).

const ADMIN_KEY = 'browser-admin-key-0123456789';
const STEP_MS = 15_000;

const YAML = `
admin_key: ${ADMIN_KEY}
nodes:
  - { id: sim-a, provider: simulated, max_concurrency: 16, simulated: { first_byte_ms: 30, tokens_per_second: 300 } }
  - { id: sim-b, provider: simulated, max_concurrency: 8, simulated: { first_byte_ms: 60, tokens_per_second: 300 } }
models:
  - id: reasoner
    context_length: 32768
    reasoning: { default_effort: low }
    pricing: { input: 0.5, output: 1.5 }
    routes: [{ node: sim-a, model: simulated-reasoner }]
  - id: chat
    context_length: 32768
    pricing: { input: 0.2, output: 0.6 }
    routes: [{ node: sim-a, model: simulated-chat }, { node: sim-b, model: simulated-chat }]
`;

const skip = browserSkipReason();

describe('operator console in Chromium', { skip, timeout: 180_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = screenshotDirectory('console');
  const pageErrors: string[] = [];
  let secret = '';
  let playgroundRequestId = '';

  const shoot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();

  before(async () => {
    await ensureConsoleBundle();
    gateway = await startTestGateway(YAML);
    browser = await launchBrowser();
    context = await browser.newContext({
      locale: 'en-US',
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 40[13]/.test(message.text())) pageErrors.push(message.text());
    });
    page.on('dialog', (dialog) => void dialog.accept());
    process.stdout.write(`console screenshots: ${shots}\n`);
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  test('a wrong admin key is refused on the sign-in page', async () => {
    await page.goto(`${gateway.origin}/console`);
    await page.getByRole('heading', { name: 'Sign in to the Switchyard console' }).waitFor();
    await shoot('sign-in');
    await page.getByLabel('Admin key').fill('not-the-admin-key-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'That is not the admin key.' }).waitFor();
    assert.equal(await page.getByRole('navigation').count(), 0, 'still signed out');
  });

  test('the admin key signs in; it is kept nowhere the page can read', async () => {
    await page.getByLabel('Admin key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview');
    const stored = await page.evaluate<string>(
      'JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie, url: location.href })',
    );
    assert.ok(!stored.includes(ADMIN_KEY), `the admin key is not in storage, cookies or the URL: ${stored}`);
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'switchyard_console');
    assert.ok(session, 'a session cookie');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(session.path, '/console');
    assert.ok(!session.value.includes(ADMIN_KEY));
    await page.reload();
    await heading('Overview');
  });

  test('a new operator creates an account and a key; the secret is shown once', async () => {
    await nav('Accounts');
    await heading('Accounts');
    await page.getByText('No accounts yet').waitFor();
    await page.getByLabel('Id', { exact: true }).fill('newco');
    await page.getByLabel('Starting balance, USD').fill('5');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.locator('tr[data-account="newco"] [data-testid="balance"]').getByText('$5.00').waitFor();

    await nav('Keys');
    await heading('Keys');
    await page.getByLabel('Account', { exact: true }).selectOption('newco');
    await page.getByLabel('Name', { exact: true }).fill('first key');
    await page.getByLabel('Spend limit, USD (optional)').fill('2');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const shown = page.getByTestId('new-key-secret');
    secret = (await shown.textContent()) ?? '';
    assert.match(secret, /^sk-sy-[\w-]{20,}$/);
    await page.getByRole('button', { name: 'Copy', exact: true }).waitFor();
    const row = page.locator('tr', { hasText: 'first key' });
    await row.getByText('active').waitFor();
    await row
      .getByText('no limit')
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
    await shoot('keys');
    await page.getByRole('button', { name: 'Done, I saved it' }).click();
    await shown.waitFor({ state: 'detached' });
    await page.reload();
    await heading('Keys');
    await row.waitFor();
    assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');
    const listed = (await admin(gateway.origin, 'GET', '/keys', ADMIN_KEY)).body as { data: Array<{ name: string }> };
    assert.ok(JSON.stringify(listed).indexOf(secret) === -1);
    assert.ok(listed.data.some((key) => key.name === 'first key'));

    // Issue 33 item 5: a key with a limit has a meter; one without has none (it was an empty bar).
    assert.equal(await row.getByRole('meter').count(), 1);
    await page.getByLabel('Name', { exact: true }).fill('unlimited key');
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByRole('button', { name: 'Done, I saved it' }).click();
    const unlimited = page.locator('tr', { hasText: 'unlimited key' });
    await unlimited.getByText('no limit').waitFor();
    assert.equal(await unlimited.getByRole('meter').count(), 0);

    await row.getByRole('button', { name: 'Block' }).click();
    await row.getByTestId('key-status').getByText('blocked').waitFor();
    const refused = await postChat(gateway.baseUrl, secret, chatBody('chat', { max_tokens: 4 }));
    assert.equal(refused.status, 401, 'a blocked key is refused');
    await refused.text();
    await row.getByRole('button', { name: 'Unblock' }).click();
    await row.getByTestId('key-status').getByText('active').waitFor();
  });

  test('the playground streams the reasoning and the answer apart, with the request id, tokens and cost', async () => {
    await nav('Playground');
    await heading('Playground');
    await page.getByLabel('API key', { exact: true }).fill(secret);
    await page.getByLabel('Model', { exact: true }).selectOption('reasoner');
    await page.getByLabel('Message').fill('Explain a railway switch in one sentence.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('playground-cost').filter({ hasText: /^\$/ }).waitFor();
    const reasoning = (await page.getByTestId('reasoning').textContent()) ?? '';
    const answer = (await page.getByTestId('answer').textContent()) ?? '';
    assert.ok(reasoning.trim().length > 0, 'reasoning text streamed');
    assert.ok(answer.trim().length > 0, 'answer text streamed');
    assert.notEqual(reasoning, answer);
    playgroundRequestId = ((await page.getByTestId('playground-request-id').textContent()) ?? '').trim();
    assert.match(playgroundRequestId, /\S{8,}/);
    assert.match(
      (await page.getByTestId('playground-tokens').textContent()) ?? '',
      /\d+ prompt · \d+ completion · \d+ reasoning/,
    );
    const row = (await admin(gateway.origin, 'GET', `/usage?request_id=${playgroundRequestId}`, ADMIN_KEY)).body as {
      data: Array<{ model: string; cost: number }>;
    };
    assert.equal(row.data[0]?.model, 'reasoner', 'the request is in the usage ledger');
    assert.ok((row.data[0]?.cost ?? 0) > 0);
    await shoot('playground');
  });

  test('the request shows on the overview chart and in usage', async () => {
    // More traffic for the charts: both models, both nodes.
    for (let index = 0; index < 6; index++) {
      const response = await postChat(
        gateway.baseUrl,
        secret,
        chatBody(index % 3 === 0 ? 'reasoner' : 'chat', { max_tokens: 16 }),
      );
      assert.equal(response.status, 200);
      await response.text();
    }
    await nav('Overview');
    await heading('Overview');
    // What clients got (the request record, written in batches) and what reached a node (the ledger).
    await waitFor(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await page.waitForTimeout(200);
        return (
          Number(await page.getByTestId('total-requests').textContent()) >= 7 &&
          Number(await page.getByTestId('ledger-requests').textContent()) >= 7
        );
      },
      STEP_MS,
      { what: 'seven requests on the overview' },
    );
    // The figures come first; uPlot draws the charts after them: four of the clients' answers, three of the ledger.
    await waitFor(async () => (await page.locator('.chart canvas').count()) === 7, STEP_MS, {
      what: 'seven charts drawn',
    });
    const ledgerCharts = page
      .getByRole('region', { name: 'Requests that reached a node (usage ledger)' })
      .locator('.chart');
    await page.getByLabel('Split by').selectOption('model');
    await ledgerCharts.first().getByText('reasoner').first().waitFor();
    await page.getByLabel('Split by').selectOption('');
    await shoot('overview');

    await nav('Usage');
    await heading('Usage');
    await page.locator(`tr[data-request="${playgroundRequestId}"]`).waitFor();
    await page.locator(`tr[data-request="${playgroundRequestId}"]`).getByRole('link').click();
    await heading('Request');
    await page.getByTestId('request-details').filter({ hasText: playgroundRequestId }).waitFor();
    const details = (await page.getByTestId('request-details').textContent()) ?? '';
    assert.ok(
      details.includes(playgroundRequestId) && details.includes('reasoner') && details.includes('sim-a'),
      details,
    );
    await shoot('request');
  });

  test('filtering usage by model and downloading the CSV', async () => {
    await nav('Usage');
    await heading('Usage');
    await page.getByLabel('Model', { exact: true }).selectOption('chat');
    await page.getByRole('button', { name: 'Apply' }).click();
    const modelCells = page.getByTestId('usage-rows').locator('tbody tr td:nth-child(4)');
    await waitFor(
      async () => {
        const models = await modelCells.allTextContents();
        return models.length === 4 && models.every((model) => model === 'chat');
      },
      STEP_MS,
      { what: 'only the four chat rows' },
    );
    await page.getByTestId('usage-totals').getByText('4 requests').waitFor();
    await shoot('usage');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^switchyard-usage-.*\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    assert.match(csv[0] as string, /^created_at,request_id,correlation_id,key,account,model,node,/);
    assert.equal(csv.length, 5, 'a header and four rows');
    assert.ok(csv.slice(1).every((line) => line.split(',')[5] === 'chat'));
  });

  test('a top-up shows in the balance and the ledger', async () => {
    await nav('Accounts');
    await heading('Accounts');
    await page.locator('tr[data-account="newco"]').getByRole('button', { name: 'Open' }).click();
    const form = page.getByRole('form', { name: 'Top up' });
    await form.getByLabel('Amount, USD').fill('2.5');
    await form.getByLabel('Reason').fill('wire transfer 42');
    await form.getByRole('button', { name: 'Top up' }).click();
    const entry = page.getByTestId('ledger').locator('tr', { hasText: 'wire transfer 42' });
    await entry.getByText('topup').waitFor();
    await entry.getByText('$2.50').waitFor();
    const account = (await admin(gateway.origin, 'GET', '/accounts/newco', ADMIN_KEY)).body as { balance: number };
    assert.ok(account.balance > 7 && account.balance < 7.5, `balance ${account.balance}`);
    await page
      .locator('tr[data-account="newco"]')
      .getByTestId('balance')
      .filter({ hasText: `$${account.balance.toFixed(2)}` })
      .waitFor();
    await shoot('accounts');
  });

  test('draining a node shows its state, and enabling it brings it back', async () => {
    await nav('Nodes');
    await heading('Nodes');
    const row = page.locator('tr[data-node="sim-b"]');
    await row.getByText('healthy').waitFor();
    await row.getByRole('button', { name: 'Drain' }).click();
    await row.getByTestId('node-state').getByText('drained').waitFor();
    assert.equal((await listNodes(gateway.origin, ADMIN_KEY)).find((node) => node.id === 'sim-b')?.state, 'drained');
    await shoot('nodes');
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.getByTestId('node-state').getByText('healthy').waitFor();
  });

  test('the models page lists routes, prices and reasoning settings', async () => {
    await nav('Models');
    await heading('Models');
    const row = page.locator('tr', { hasText: 'reasoner' });
    await row.getByText('sim-a → simulated-reasoner').waitFor();
    await row.getByText('input $0.5').waitFor();
    await row.getByText(/default: low/).waitFor();
    await shoot('models');
  });

  test('an hour of traffic is drawn per model: every seeded request counted', async () => {
    // Usage rows over the last hour, booked as the gateway books them (a key of no account).
    const rows: UsageRow[] = [];
    const now = Date.now();
    for (let minute = 59; minute >= 1; minute--) {
      const count = 3 + Math.round(2 + 2 * Math.sin(minute / 5));
      for (let index = 0; index < count; index++) {
        const model = index % 3 === 0 ? 'reasoner' : 'chat';
        const failed = minute % 17 === 0 && index === 0;
        rows.push({
          requestId: `seed_${minute}_${index}`,
          correlationId: `seed_${minute}_${index}`,
          keyId: 'key_seed',
          accountId: null,
          model,
          node: model === 'chat' && index % 2 === 0 ? 'sim-b' : 'sim-a',
          attempts: 1,
          promptTokens: 200 + 40 * index,
          completionTokens: model === 'reasoner' ? 900 + 10 * minute : 300 + 5 * minute,
          reasoningTokens: model === 'reasoner' ? 500 : 0,
          cachedTokens: 0,
          cacheWriteTokens: 0,
          cacheWrite1hTokens: 0,
          costNano: failed ? 0 : (model === 'reasoner' ? 1_500 : 400) * (100 + minute),
          estimated: false,
          status: failed ? 502 : 200,
          errorCode: failed ? 'upstream_error' : null,
          latencyMs: (model === 'reasoner' ? 1800 : 600) + 15 * ((minute * 7 + index * 13) % 40),
          firstByteMs: 120,
          stream: true,
          finishReason: failed ? null : 'stop',
          frontDoor: 'chat',
          endUser: null,
          createdAt: new Date(now - minute * 60_000 + index * 1_000).toISOString(),
        });
      }
    }
    await gateway.running.services.store.recordUsage(rows);
    await nav('Overview');
    await heading('Overview');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await waitFor(
      async () =>
        Number((await page.getByTestId('ledger-requests').textContent())?.replace(/\D/g, '')) >= rows.length + 7,
      STEP_MS,
      { what: `the ${rows.length} seeded requests on the overview` },
    );
    await page.getByLabel('Split by').selectOption('model');
    const ledgerCharts = page
      .getByRole('region', { name: 'Requests that reached a node (usage ledger)' })
      .locator('.chart');
    await ledgerCharts.first().getByText('chat').first().waitFor();
    await ledgerCharts.first().getByText('reasoner').first().waitFor();
    await shoot('overview-history');
  });

  test('signing out returns to the sign-in page and the session is gone', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the Switchyard console' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the Switchyard console' }).waitFor();
    assert.deepEqual(pageErrors, [], `no script errors or blocked resources on any page: ${pageErrors.join('\n')}`);
  });

  test('a Russian browser gets the console in Russian', async () => {
    const russian = await browser.newContext({ locale: 'ru-RU', viewport: { width: 1280, height: 900 } });
    try {
      const russianPage = await russian.newPage();
      russianPage.setDefaultTimeout(STEP_MS);
      await russianPage.goto(`${gateway.origin}/console`);
      await russianPage.getByRole('heading', { name: 'Вход в консоль Switchyard' }).waitFor();
      // From the keyboard: the key field has the focus, Enter signs in.
      await russianPage.keyboard.type(ADMIN_KEY);
      await russianPage.keyboard.press('Enter');
      await russianPage.getByRole('heading', { level: 1, name: 'Обзор' }).waitFor();
      assert.equal(await russianPage.locator('html').getAttribute('lang'), 'ru');
      // Tab reaches the menu; Enter follows a link.
      const menuLink = russianPage.getByRole('navigation').getByRole('link', { name: 'Ключи', exact: true });
      for (
        let presses = 0;
        presses < 12 && !(await menuLink.evaluate((link) => link === link.ownerDocument.activeElement));
        presses++
      )
        await russianPage.keyboard.press('Tab');
      await russianPage.keyboard.press('Enter');
      await russianPage.getByRole('heading', { level: 1, name: 'Ключи' }).waitFor();
      await russianPage.screenshot({ path: join(shots, 'overview-ru.png'), fullPage: true });
    } finally {
      await russian.close();
    }
  });
});
