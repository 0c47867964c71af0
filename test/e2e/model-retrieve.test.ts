import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { NotFoundError } from 'openai';
import { expectError } from '../support/http-assertions.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 18 item 2: GET /v1/models/{id} in OpenAI's model shape; client.models.retrieve() works.

const OPEN_KEY = 'sk-e2e-model-retrieve-open-0123';
const NARROW_KEY = 'sk-e2e-model-retrieve-narrow-0123';
const TIMEOUT = { timeout: 10_000 };

describe('GET /v1/models/{id}', () => {
  let gateway: TestGateway;

  before(async () => {
    gateway = await startTestGateway(`
nodes:
  - { id: sim, provider: simulated }
models:
  - id: Qwen/Qwen3-32B
    context_length: 32768
    reasoning: { default_effort: medium }
    routes: [{ node: sim }]
  - id: plain
    routes: [{ node: sim }]
keys:
  - { key: ${OPEN_KEY} }
  - { key: ${NARROW_KEY}, allowed_models: [plain] }
`);
  });
  after(() => gateway?.close());

  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 4000 });
  const get = (path: string, key: string | null = OPEN_KEY, method = 'GET') =>
    fetch(`${gateway.baseUrl}${path}`, {
      method,
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(4000),
    });

  test('openai-node models.retrieve() reads a model whose id holds a slash', TIMEOUT, async () => {
    const model = await client(OPEN_KEY).models.retrieve('Qwen/Qwen3-32B');
    assert.equal(model.id, 'Qwen/Qwen3-32B');
    assert.equal(model.object, 'model');
    assert.equal(typeof model.created, 'number');
    assert.equal(typeof model.owned_by, 'string');
    assert.equal((await client(NARROW_KEY).models.retrieve('plain')).id, 'plain');
  });

  test('raw HTTP: the same record as the list entry, id with an unencoded slash too', TIMEOUT, async () => {
    const list = (await (await get('/models')).json()) as { data: Array<Record<string, unknown>> };
    for (const path of ['/models/Qwen/Qwen3-32B', '/models/Qwen%2FQwen3-32B']) {
      const response = await get(path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.ok(response.headers.get('x-request-id'));
      const body = (await response.json()) as Record<string, unknown>;
      assert.deepEqual(
        body,
        list.data.find((entry) => entry.id === 'Qwen/Qwen3-32B'),
      );
      assert.equal(body.context_length, 32768);
    }
  });

  test('404 model_unavailable in the error format: unknown model, or one the key may not use', TIMEOUT, async () => {
    await expectError(await get('/models/nope'), {
      status: 404,
      code: 'model_unavailable',
      type: 'invalid_request_error',
    });
    const hidden = await get('/models/Qwen%2FQwen3-32B', NARROW_KEY);
    const error = await expectError(hidden, { status: 404, code: 'model_unavailable', type: 'invalid_request_error' });
    assert.match(error.error.message, /Qwen\/Qwen3-32B/);
    await assert.rejects(
      client(NARROW_KEY).models.retrieve('Qwen/Qwen3-32B'),
      (caught: unknown) => caught instanceof NotFoundError,
    );
  });

  test('admitted like the list: 401 without a key; 405 for another method', TIMEOUT, async () => {
    await expectError(await get('/models/plain', null), {
      status: 401,
      code: 'authentication_required',
      type: 'authentication_error',
    });
    const post = await get('/models/plain', OPEN_KEY, 'POST');
    await expectError(post, { status: 405, code: 'method_not_allowed', type: 'invalid_request_error' });
    assert.equal(post.headers.get('allow'), 'GET');
  });
});
