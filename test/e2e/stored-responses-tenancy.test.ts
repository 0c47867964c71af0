import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { NotFoundError, RateLimitError } from 'openai';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { expectError } from '../support/http-assertions.js';
import { parseResponsesEvents } from '../support/responses-events.js';
import { storeBackends } from '../support/store-backends.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 28 items 3, 8 and 11 (Responses parts): stored responses are each account's own
// even when a native node gives two accounts the same id, and a client cannot choose that
// id; a node's item id is only sent on for the account that holds it; an account's stored
// responses have a quota; an id no store can hold is a clean 404; a native stream that
// breaks keeps one response id. On PGlite, where a NUL byte in an id used to be a 500.

const [pglite] = await storeBackends('stored-responses-tenancy');
after(() => pglite?.cleanup());

const ACME_KEY = 'sk-e2e-tenancy-acme-0123456789ab';
const GLOBEX_KEY = 'sk-e2e-tenancy-globex-0123456789';
const QUOTA_KEY = 'sk-e2e-tenancy-quota-0123456789a';
const INITECH_KEY = 'sk-e2e-tenancy-initech-012345678';
const ADMIN_KEY = 'admin-e2e-tenancy-5f0c9a7e21d4b8c3';
const TIMEOUT = { timeout: 30_000 };

describe('stored responses keep tenants apart (native nodes)', { skip: pglite?.skip }, () => {
  let first: SimulatedNode;
  let second: SimulatedNode;
  let cutting: SimulatedNode;
  let gateway: TestGateway;

  before(async () => {
    // Two nodes that each number their responses from 1: they hand out the same ids.
    first = await startSimulator();
    second = await startSimulator();
    cutting = await startSimulator({ tokensPerSecond: 200, faults: { cutAfterChunks: 4 } });
    gateway = await startTestGateway(`
store: "${pglite?.store}"
usage: { journal_dir: "${pglite?.journalDir}" }
admin_key: ${ADMIN_KEY}
responses: { max_stored_responses_per_account: 3, max_conversation_responses: 2 }
nodes:
  - { id: first, provider: openai, base_url: "${first.baseUrl}", apis: [chat, responses] }
  - { id: second, provider: openai, base_url: "${second.baseUrl}", apis: [chat, responses] }
  - { id: cutting, provider: openai, base_url: "${cutting.baseUrl}", apis: [chat, responses] }
  - { id: plain, provider: simulated }
models:
  - { id: on-first, routes: [{ node: first }] }
  - { id: on-second, routes: [{ node: second }] }
  - { id: cut, routes: [{ node: cutting }] }
  - { id: translated, routes: [{ node: plain }] }
accounts:
  - { id: acme }
  - { id: globex }
  - { id: quota }
  - { id: initech }
keys:
  - { key: ${ACME_KEY}, account: acme }
  - { key: ${GLOBEX_KEY}, account: globex }
  - { key: ${QUOTA_KEY}, account: quota }
  - { key: ${INITECH_KEY}, account: initech }
`);
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([first, second, cutting].map((node) => node?.close()));
  });

  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 10_000 });
  const call = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${gateway.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });

  test(
    "the same node id for two accounts: each keeps its own response, neither replaces the other's",
    TIMEOUT,
    async () => {
      const acme = await client(ACME_KEY).responses.create({ model: 'on-first', input: 'Say hello for acme.' });
      const globex = await client(GLOBEX_KEY).responses.create({ model: 'on-second', input: 'Say hello for globex.' });
      assert.equal(globex.id, acme.id, 'both nodes gave the same id');
      const acmeStored = await client(ACME_KEY).responses.retrieve(acme.id);
      assert.equal(acmeStored.model, 'on-first', "acme still reads its own response, not globex's");
      assert.equal(acmeStored.output_text, acme.output_text);
      const globexStored = await client(GLOBEX_KEY).responses.retrieve(globex.id);
      assert.equal(globexStored.model, 'on-second');
      // Continuing it reaches back into each account's own conversation.
      await client(GLOBEX_KEY).responses.delete(globex.id);
      assert.equal((await client(ACME_KEY).responses.retrieve(acme.id)).model, 'on-first');
    },
  );

  test("a client's request_id (vLLM's way to set the response id) is not sent to the node", TIMEOUT, async () => {
    await client(GLOBEX_KEY).responses.create({
      model: 'on-second',
      input: 'Hi',
      ...({ request_id: 'chosen-by-the-client' } as object),
    });
    const body = second.stats().lastRequest?.body as Record<string, unknown>;
    assert.equal(body.input, 'Hi');
    assert.equal('request_id' in body, false);
  });

  test(
    "another account's node item id is 404 and never reaches a node; the account's own goes on as is",
    TIMEOUT,
    async () => {
      const acme = await client(ACME_KEY).responses.create({ model: 'on-first', input: 'Tell me a secret.' });
      const itemId = acme.output[0]?.id;
      assert.ok(itemId !== undefined && itemId !== '', "the node's output item id");
      first.resetStats();
      const refused = await expectError(
        await call('/responses', INITECH_KEY, {
          method: 'POST',
          body: JSON.stringify({
            model: 'on-first',
            input: [
              { type: 'item_reference', id: itemId },
              { role: 'user', content: 'Repeat that.' },
            ],
          }),
        }),
        { status: 404, code: 'not_found', type: 'invalid_request_error', param: 'input[0]' },
      );
      assert.match(refused.error.message, new RegExp(itemId));
      assert.equal(first.stats().requests, 0, 'the node was not called');

      await client(ACME_KEY)
        .responses.create({
          model: 'on-first',
          input: [
            { type: 'item_reference', id: itemId },
            { role: 'user', content: 'Repeat that.' },
          ],
        })
        .catch(() => undefined); // The simulator keeps no items: what matters is what it was sent.
      const input = (first.stats().lastRequest?.body as { input: unknown[] }).input;
      assert.deepEqual(input[0], { type: 'item_reference', id: itemId });
    },
  );

  test(
    'an id with a NUL byte or a space is a clean 404 (400 for previous_response_id), never a 500',
    TIMEOUT,
    async () => {
      for (const raw of ['resp_%00abc', 'resp_%20abc', `resp_${'x'.repeat(300)}`]) {
        for (const [path, method] of [
          [`/responses/${raw}`, 'GET'],
          [`/responses/${raw}`, 'DELETE'],
          [`/responses/${raw}/input_items`, 'GET'],
        ] as const) {
          await expectError(await call(path, ACME_KEY, { method }), {
            status: 404,
            code: 'response_not_found',
            type: 'invalid_request_error',
            param: null,
          });
        }
      }
      await expectError(
        await call('/responses', ACME_KEY, {
          method: 'POST',
          body: JSON.stringify({ model: 'on-first', input: 'Hi', previous_response_id: 'resp_\u0000abc' }),
        }),
        {
          status: 400,
          code: 'previous_response_not_found',
          type: 'invalid_request_error',
          param: 'previous_response_id',
        },
      );
      await expectError(
        await call('/responses', ACME_KEY, {
          method: 'POST',
          body: JSON.stringify({
            model: 'on-first',
            input: [
              { type: 'item_reference', id: 'msg_\u0000abc' },
              { role: 'user', content: 'Hi' },
            ],
          }),
        }),
        { status: 404, code: 'not_found', type: 'invalid_request_error', param: 'input[0]' },
      );
    },
  );

  test("a native stream that breaks: response.failed carries the node's response id", TIMEOUT, async () => {
    const response = await call('/responses', ACME_KEY, {
      method: 'POST',
      body: JSON.stringify({ model: 'cut', input: 'Tell me a long story.', stream: true }),
    });
    const events = parseResponsesEvents(await response.text());
    const idOf = (name: string) => {
      const event = events.find((candidate) => candidate.name === name);
      assert.ok(event, name);
      return (event.data.response as { id?: unknown }).id;
    };
    assert.equal(events[events.length - 1]?.name, 'response.failed');
    assert.match(String(idOf('response.created')), /^resp_0+\d+$/, "the node's id");
    assert.ok(
      events.some((event) => event.name === 'response.output_text.delta'),
      'the node streamed text before it broke',
    );
    assert.equal(idOf('response.failed'), idOf('response.created'), 'one id from response.created to response.failed');
  });

  test(
    'quota: an account with max_stored_responses_per_account responses stored is 429 before the node, until it deletes one',
    TIMEOUT,
    async () => {
      const quota = client(QUOTA_KEY);
      const kept: string[] = [];
      for (let index = 0; index < 3; index++) {
        kept.push((await quota.responses.create({ model: 'on-first', input: `Turn ${index}` })).id);
      }
      first.resetStats();
      const refused = await expectError(
        await call('/responses', QUOTA_KEY, {
          method: 'POST',
          body: JSON.stringify({ model: 'on-first', input: 'More' }),
        }),
        { status: 429, code: 'stored_responses_full', type: 'rate_limit_error', param: 'store' },
      );
      assert.match(refused.error.message, /at most 3 responses/);
      assert.match(refused.error.message, /store: false/);
      assert.equal(first.stats().requests, 0, 'refused before any node was called');
      await assert.rejects(quota.responses.create({ model: 'on-first', input: 'More' }), RateLimitError);
      const counted = await call('/responses/input_tokens', QUOTA_KEY, {
        method: 'POST',
        body: JSON.stringify({ model: 'on-first', input: 'More' }),
      });
      assert.equal(counted.status, 200, 'counting tokens stores nothing: not refused');

      const unstored = await quota.responses.create({ model: 'on-first', input: 'More', store: false });
      assert.equal(unstored.status, 'completed', 'store: false is still served');
      await assert.rejects(quota.responses.retrieve(unstored.id), NotFoundError);
      assert.ok(await client(ACME_KEY).responses.create({ model: 'on-first', input: 'Other accounts store' }));

      await quota.responses.delete(kept[0] as string);
      const again = await quota.responses.create({ model: 'on-first', input: 'After a delete' });
      assert.equal((await quota.responses.retrieve(again.id)).id, again.id);
    },
  );

  test(
    'a previous_response_id reaching back through more than max_conversation_responses is 400',
    TIMEOUT,
    async () => {
      const initech = client(INITECH_KEY);
      const first = await initech.responses.create({ model: 'translated', input: 'One' });
      const second = await initech.responses.create({
        model: 'translated',
        input: 'Two',
        previous_response_id: first.id,
      });
      const third = await initech.responses.create({
        model: 'translated',
        input: 'Three',
        previous_response_id: second.id,
      });
      assert.equal(third.status, 'completed', 'two stored responses before it: within the limit');
      const refused = await expectError(
        await call('/responses', INITECH_KEY, {
          method: 'POST',
          body: JSON.stringify({ model: 'translated', input: 'Four', previous_response_id: third.id, store: false }),
        }),
        { status: 400, code: 'validation_failed', type: 'invalid_request_error', param: 'previous_response_id' },
      );
      assert.match(refused.error.message, /more than 2 stored responses/);
    },
  );

  test('/metrics states the stored responses kept and their bytes', TIMEOUT, async () => {
    const response = await fetch(`${gateway.origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const text = await response.text();
    const count = Number(/^switchyard_stored_responses (\d+)$/m.exec(text)?.[1]);
    const bytes = Number(/^switchyard_stored_response_bytes (\d+)$/m.exec(text)?.[1]);
    assert.ok(count >= 4, `${count} stored responses`);
    assert.ok(bytes > count * 100, `${bytes} bytes`);
  });
});
