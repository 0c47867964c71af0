import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { AuthenticationError, NotFoundError } from 'openai';
import { hashKeyHex } from '../../src/auth/key-registry.js';
import type { StoredResponse } from '../../src/responses-state/stored-response.js';
import { expectError } from '../support/http-assertions.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 20 item 5 (PRODUCT.md decision 17): stored responses read, listed and deleted over
// HTTP with the official client, scoped to the key's account. The responses are saved
// through the gateway's own ResponseStore, as POST /v1/responses saves them.

const ACME_KEY = 'sk-e2e-stored-responses-acme-0123';
const ACME_OTHER_KEY = 'sk-e2e-stored-responses-acme-4567';
const GLOBEX_KEY = 'sk-e2e-stored-responses-globex-01';
const LONE_KEY = 'sk-e2e-stored-responses-lone-0123';
const LONE_OTHER_KEY = 'sk-e2e-stored-responses-lone-4567';
const TIMEOUT = { timeout: 10_000 };
const DAY_S = 24 * 60 * 60;

function storedResponse(id: string, itemCount: number, createdAt = Math.floor(Date.now() / 1000)): StoredResponse {
  return {
    id,
    accountId: 'acme',
    createdAt,
    model: 'qwen3-32b',
    node: 'sim',
    previousResponseId: null,
    depth: 1,
    response: {
      id,
      object: 'response',
      created_at: createdAt,
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: null,
      model: 'qwen3-32b',
      output: [
        {
          id: `msg_out_${id}`,
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello!', annotations: [] }],
        },
      ],
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      temperature: 1,
      top_p: 1,
      metadata: {},
      usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
    },
    inputItems: Array.from({ length: itemCount }, (_, index) => ({
      id: `msg_${id}_${index}`,
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: `turn ${index}` }],
    })),
  };
}

describe('stored responses: GET/DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items', () => {
  let gateway: TestGateway;

  before(async () => {
    gateway = await startTestGateway(`
responses: { retention_days: 30, max_stored_bytes: 16384 }
nodes:
  - { id: sim, provider: simulated }
models:
  - { id: qwen3-32b, routes: [{ node: sim }] }
accounts:
  - { id: acme }
  - { id: globex }
keys:
  - { key: ${ACME_KEY}, account: acme }
  - { key: ${ACME_OTHER_KEY}, account: acme }
  - { key: ${GLOBEX_KEY}, account: globex }
  - { key: ${LONE_KEY} }
  - { key: ${LONE_OTHER_KEY} }
`);
  });
  after(() => gateway?.close());

  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 4000 });
  const save = (response: StoredResponse) => gateway.running.services.responses.save(response);
  const call = (path: string, key: string | null = ACME_KEY, method = 'GET') =>
    fetch(`${gateway.baseUrl}${path}`, {
      method,
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(4000),
    });
  const isNotFound = (error: unknown) => error instanceof NotFoundError;

  test('responses.retrieve() returns the stored Response object, for every key of its account', TIMEOUT, async () => {
    const saved = storedResponse('resp_retrieve1', 1);
    await save(saved);
    const response = await client(ACME_KEY).responses.retrieve('resp_retrieve1');
    assert.equal(response.id, 'resp_retrieve1');
    assert.equal(response.output_text, 'Hello!', "the client's own helper reads it");
    const other = await client(ACME_OTHER_KEY).responses.retrieve('resp_retrieve1');
    assert.equal(other.id, 'resp_retrieve1', 'another key of the same account reads it too');
    const raw = await call('/responses/resp_retrieve1?include[]=message.output_text.logprobs');
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type') ?? '', /^application\/json/);
    assert.ok(raw.headers.get('x-request-id'));
    assert.deepEqual(await raw.json(), saved.response, 'the Response object as it was saved');
  });

  test("another account's response is 404 for retrieve, delete and inputItems.list, and stays", TIMEOUT, async () => {
    await save(storedResponse('resp_scoped1', 2));
    const globex = client(GLOBEX_KEY);
    await assert.rejects(globex.responses.retrieve('resp_scoped1'), isNotFound);
    await assert.rejects(globex.responses.delete('resp_scoped1'), isNotFound);
    await assert.rejects(globex.responses.inputItems.list('resp_scoped1'), isNotFound);
    const body = await expectError(await call('/responses/resp_scoped1', GLOBEX_KEY), {
      status: 404,
      code: 'response_not_found',
      type: 'invalid_request_error',
      param: null,
    });
    assert.equal(body.error.message, "Response with id 'resp_scoped1' not found.");
    assert.equal((await client(ACME_KEY).responses.retrieve('resp_scoped1')).id, 'resp_scoped1');
  });

  test('a key without an account owns its responses alone', TIMEOUT, async () => {
    const keyId = gateway.running.services.accounts.findHashed(hashKeyHex(LONE_KEY))?.keyId;
    assert.ok(keyId);
    await save({ ...storedResponse('resp_lone1', 1), accountId: `key:${keyId}` });
    assert.equal((await client(LONE_KEY).responses.retrieve('resp_lone1')).id, 'resp_lone1');
    await assert.rejects(client(LONE_OTHER_KEY).responses.retrieve('resp_lone1'), isNotFound);
    await assert.rejects(client(ACME_KEY).responses.retrieve('resp_lone1'), isNotFound);
  });

  test('responses.delete() deletes it once; then it is 404 everywhere', TIMEOUT, async () => {
    await save(storedResponse('resp_delete1', 1));
    await client(ACME_KEY).responses.delete('resp_delete1');
    await assert.rejects(client(ACME_KEY).responses.retrieve('resp_delete1'), isNotFound);
    await assert.rejects(client(ACME_KEY).responses.inputItems.list('resp_delete1'), isNotFound);
    await assert.rejects(client(ACME_KEY).responses.delete('resp_delete1'), isNotFound);

    await save(storedResponse('resp_delete2', 1));
    const raw = await call('/responses/resp_delete2', ACME_KEY, 'DELETE');
    assert.equal(raw.status, 200);
    assert.deepEqual(await raw.json(), { id: 'resp_delete2', object: 'response', deleted: true });
  });

  test('a response past its retention is 404, and so is one over max_stored_bytes', TIMEOUT, async () => {
    await save(storedResponse('resp_expired1', 1, Math.floor(Date.now() / 1000) - 31 * DAY_S));
    await assert.rejects(client(ACME_KEY).responses.retrieve('resp_expired1'), isNotFound);
    await assert.rejects(client(ACME_KEY).responses.delete('resp_expired1'), isNotFound);
    await save(storedResponse('resp_month1', 1, Math.floor(Date.now() / 1000) - 29 * DAY_S));
    assert.equal((await client(ACME_KEY).responses.retrieve('resp_month1')).id, 'resp_month1', 'within 30 days');

    await save(storedResponse('resp_huge1', 300)); // ~20 KB of input items > 16384
    await assert.rejects(client(ACME_KEY).responses.retrieve('resp_huge1'), isNotFound);
    const warning = gateway.logs().find((line) => line.response_id === 'resp_huge1');
    assert.equal(warning?.max_stored_bytes, 16384);
  });

  test('inputItems.list(): newest first by default, pages with after, asc on request', TIMEOUT, async () => {
    await save(storedResponse('resp_items1', 45));
    const acme = client(ACME_KEY);
    const first = await acme.responses.inputItems.list('resp_items1');
    assert.equal(first.data.length, 20, 'default limit 20');
    assert.equal(first.data[0]?.id, 'msg_resp_items1_44', 'desc by default: the last input item first');
    assert.equal(first.has_more, true);

    const ids: string[] = [];
    for await (const item of acme.responses.inputItems.list('resp_items1', { order: 'asc', limit: 7 })) {
      ids.push(item.id);
    }
    assert.deepEqual(
      ids,
      Array.from({ length: 45 }, (_, index) => `msg_resp_items1_${index}`),
      'the client pages through every item with after = last_id',
    );

    const raw = await call('/responses/resp_items1/input_items?order=asc&limit=2&after=msg_resp_items1_42');
    assert.deepEqual(await raw.json(), {
      object: 'list',
      data: storedResponse('resp_items1', 45).inputItems.slice(43),
      first_id: 'msg_resp_items1_43',
      last_id: 'msg_resp_items1_44',
      has_more: false,
    });
  });

  test('bad queries are 400 naming the param; stream replay is not offered', TIMEOUT, async () => {
    await save(storedResponse('resp_query1', 3));
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['order=sideways', 'order'],
      ['after=msg_nowhere', 'after'],
    ] as const) {
      await expectError(await call(`/responses/resp_query1/input_items?${query}`), {
        status: 400,
        code: 'validation_failed',
        type: 'invalid_request_error',
        param,
      });
    }
    await expectError(await call('/responses/resp_query1?stream=true'), {
      status: 400,
      code: 'validation_failed',
      type: 'invalid_request_error',
      param: 'stream',
    });
  });

  test('admitted like every API route; other methods 405, other paths 404', TIMEOUT, async () => {
    await save(storedResponse('resp_admit1', 1));
    await assert.rejects(
      new OpenAI({ apiKey: 'sk-nobody-0123456789abcdef', baseURL: gateway.baseUrl, maxRetries: 0 }).responses.retrieve(
        'resp_admit1',
      ),
      (error: unknown) => error instanceof AuthenticationError,
    );
    await expectError(await call('/responses/resp_admit1', null), {
      status: 401,
      code: 'authentication_required',
      type: 'authentication_error',
    });
    const put = await call('/responses/resp_admit1', ACME_KEY, 'PUT');
    await expectError(put, { status: 405, code: 'method_not_allowed', type: 'invalid_request_error' });
    assert.equal(put.headers.get('allow'), 'GET, DELETE');
    const deleteItems = await call('/responses/resp_admit1/input_items', ACME_KEY, 'DELETE');
    await expectError(deleteItems, { status: 405, code: 'method_not_allowed', type: 'invalid_request_error' });
    assert.equal(deleteItems.headers.get('allow'), 'GET');
    for (const [path, method] of [
      ['/responses/resp_admit1/cancel', 'POST'],
      ['/responses/resp_admit1/other', 'GET'],
      ['/responses/', 'GET'],
    ] as const) {
      await expectError(await call(path, ACME_KEY, method), {
        status: 404,
        code: 'model_unavailable',
        type: 'invalid_request_error',
      });
    }
    assert.equal((await call('/responses/resp_admit1')).status, 200, 'and the response is still there');
  });
});
