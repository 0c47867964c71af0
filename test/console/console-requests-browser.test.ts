import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserSkipReason, launchBrowser, screenshotDirectory } from '../support/browser.js';
import { ensureConsoleBundle } from '../support/console-bundle.js';
import { freePort } from '../support/free-port.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// Issue 29 item 5, PRODUCT decision 30, in a real browser (Debian's Chromium via
// playwright-core) against a real gateway: a first visit shows the sign-in; after a mixed
// run of client requests (successes, failovers and several kinds of refusals) the
// overview's error rate is the share of non-2xx answers the clients got and a node failing
// every request stands out; the Requests page lists the requests, filters them by status
// class and follows new ones live; a failed-over request's page shows its two attempts in
// order on one time axis. Screenshots under test-output/console-requests.

const ADMIN_KEY = 'browser-requests-admin-0123456789';
const API_KEY = 'sk-requests-browser-0123456789abcd';
const BROKE_KEY = 'sk-requests-browser-broke-01234567';
const LIMITED_KEY = 'sk-requests-browser-limited-012345';
const STEP_MS = 20_000;

const skip = browserSkipReason();

describe(
  'the console tells the truth: overview, Requests page, a request’s attempts',
  { skip, timeout: 240_000 },
  () => {
    let gateway: TestGateway;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    const shots = screenshotDirectory('console-requests');
    const pageErrors: string[] = [];
    const statuses: number[] = [];
    let failedOverId = '';

    const shoot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
    const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
    /** Sends a chat request as a client would and notes the status it got. */
    const send = async (key: string | undefined, body: unknown): Promise<Response> => {
      const response = await postChat(gateway.baseUrl, key, body);
      await response.arrayBuffer();
      statuses.push(response.status);
      return response;
    };

    before(async () => {
      await ensureConsoleBundle();
      const deadPort = await freePort();
      gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
http: { body_limit_bytes: 65536 }
health: { failure_threshold: 1000 }
nodes:
  - { id: broken, provider: openai, base_url: "http://127.0.0.1:${deadPort}/v1", timeouts: { connect_ms: 500 } }
  - { id: sim-a, provider: simulated, max_concurrency: 16, simulated: { first_byte_ms: 20, tokens_per_second: 500 } }
models:
  - { id: chat, routes: [{ node: broken }, { node: sim-a, priority: 1 }] }
  - { id: direct, routes: [{ node: sim-a }] }
  - { id: paid, pricing: { input: 1, output: 1 }, routes: [{ node: sim-a }] }
accounts:
  - { id: broke, balance: 0 }
keys:
  - { key: ${API_KEY}, name: main }
  - { key: ${BROKE_KEY}, account: broke }
  - { key: ${LIMITED_KEY}, limits: { rpm: 1 } }
`);
      browser = await launchBrowser();
      context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      page.setDefaultTimeout(STEP_MS);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error' && !/status of 40[1349]/.test(message.text())) pageErrors.push(message.text());
      });
      process.stdout.write(`console screenshots: ${shots}\n`);
    });
    after(async () => {
      await browser?.close();
      await gateway?.close();
    });

    test('the first visit without a cookie shows the sign-in, not "your session has ended"', async () => {
      await page.goto(`${gateway.origin}/console`);
      await page.getByRole('heading', { name: 'Sign in to the Switchyard console' }).waitFor();
      assert.equal(await page.getByText('Your session has ended').count(), 0);
      await shoot('first-visit');
      await page.getByLabel('Admin key').fill(ADMIN_KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading('Overview');
    });

    test('after a mixed run the overview’s error rate is the share of non-2xx answers clients got', async () => {
      for (let index = 0; index < 5; index++) await send(API_KEY, chatBody('direct', { max_tokens: 8 }));
      for (let index = 0; index < 2; index++) {
        const response = await send(API_KEY, chatBody('chat', { max_tokens: 8 }));
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('x-switchyard-attempts'), '2');
        failedOverId = response.headers.get('x-request-id') ?? '';
      }
      await send('sk-requests-browser-not-a-key-0123', chatBody('direct')); // 401
      await send(API_KEY, chatBody('direct', { temperature: 'warm' })); // 400
      await send(API_KEY, chatBody('no-such-model')); // 404
      await send(API_KEY, chatBody('direct', { padding: 'x'.repeat(70_000) })); // 413
      await send(BROKE_KEY, chatBody('paid')); // 402
      await send(LIMITED_KEY, chatBody('direct', { max_tokens: 4 })); // 200
      await send(LIMITED_KEY, chatBody('direct', { max_tokens: 4 })); // 429
      assert.deepEqual(
        [...new Set(statuses)].sort(),
        [200, 400, 401, 402, 404, 413, 429],
        `the clients got every kind: ${statuses.join(' ')}`,
      );
      const total = statuses.length;
      const failed = statuses.filter((status) => status < 200 || status >= 300).length;

      // The record is written in batches off the request path: refresh until all are there.
      await waitFor(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          await page.waitForTimeout(300);
          return Number((await page.getByTestId('total-requests').textContent())?.replace(/\D/g, '')) === total;
        },
        STEP_MS,
        { what: `${total} requests on the overview`, everyMs: 200 },
      );
      const shown = Number(await page.getByTestId('error-rate').getAttribute('data-value'));
      assert.ok(Math.abs(shown - failed / total) < 1e-9, `error rate ${shown}, clients got ${failed}/${total} non-2xx`);
      assert.match((await page.getByTestId('error-rate').textContent()) ?? '', /%$/);
      // Split by code, every code the clients saw.
      const codes = page.getByTestId('error-codes');
      for (const code of [
        'validation_failed',
        'model_unavailable',
        'payload_too_large',
        'insufficient_balance',
        'rate_limited',
      ])
        await codes.locator(`tr[data-code="${code}"]`).waitFor();
      // The node that failed every attempt stands out.
      const broken = page.getByTestId('overview-nodes').locator('tr[data-node="broken"]');
      await broken.getByText('100%').waitFor();
      assert.match((await broken.getAttribute('class')) ?? '', /row-alert/);
      await shoot('overview');
    });

    test('the Requests page lists the requests and filters them by status class', async () => {
      await nav('Requests');
      await heading('Requests');
      const rows = page.getByTestId('request-rows').locator('tbody tr');
      // Every request with a valid key has its row (the one without a valid key is counted per address).
      const withKey = statuses.length - 1;
      await waitFor(async () => (await rows.count()) === withKey, STEP_MS, { what: `${withKey} rows` });
      await page.getByLabel('Status', { exact: true }).selectOption('4xx');
      assert.equal(
        await page.getByTestId('live-state').getAttribute('data-paused'),
        'true',
        'filtering pauses the live view',
      );
      await page.getByRole('button', { name: 'Apply' }).click();
      await waitFor(
        async () => {
          const shown = await rows.evaluateAll((elements) => elements.map((row) => row.getAttribute('data-status')));
          return shown.length === 5 && shown.every((status) => /^4\d\d$/.test(status ?? ''));
        },
        STEP_MS,
        { what: 'only the five 4xx rows with a key (400, 404, 413, 402, 429)' },
      );
      await shoot('requests-4xx');
      await page.getByLabel('Status', { exact: true }).selectOption('');
      await page.getByRole('button', { name: 'Apply' }).click();
      await waitFor(async () => (await rows.count()) === withKey, STEP_MS, { what: 'all rows again' });

      // The live view shows a new request without a click.
      assert.equal(await page.getByTestId('live-state').getAttribute('data-paused'), 'false');
      const fresh = await send(API_KEY, chatBody('direct', { max_tokens: 4 }));
      const freshId = fresh.headers.get('x-request-id') ?? '';
      await page.locator(`tr[data-request="${freshId}"]`).waitFor({ timeout: STEP_MS });
    });

    test('a failed-over request’s page shows its two attempts in order on one time axis', async () => {
      await page.getByLabel('Request id').fill(failedOverId);
      await page.getByRole('button', { name: 'Find' }).click();
      await heading('Request');
      const details = page.getByTestId('request-details');
      await details.getByText(failedOverId, { exact: true }).first().waitFor();
      const text = (await details.textContent()) ?? '';
      assert.match(text, /Door\s*chat/);
      assert.match(text, /Model asked\s*chat/);
      assert.match((await page.getByTestId('request-status').textContent()) ?? '', /^200/);
      const attempts = page.getByTestId('attempts').locator('li.timeline-row');
      assert.equal(await attempts.count(), 2);
      assert.deepEqual(await attempts.evaluateAll((items) => items.map((item) => item.getAttribute('data-node'))), [
        'broken',
        'sim-a',
      ]);
      // Bars on one axis: the second attempt starts after the first one began, and not left of it.
      const lefts = await attempts
        .locator('.timeline-bar')
        .evaluateAll((bars) => bars.map((bar) => bar.getBoundingClientRect().left));
      assert.ok((lefts[1] ?? 0) >= (lefts[0] ?? 0), `bars ${lefts.join(', ')}`);
      assert.match((await attempts.nth(0).textContent()) ?? '', /broken/);
      assert.match((await attempts.nth(1).textContent()) ?? '', /sim-a\s*200/);
      await shoot('request-failover');
      assert.deepEqual(pageErrors, [], `no script errors: ${pageErrors.join('\n')}`);
    });
  },
);
