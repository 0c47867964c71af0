import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic, { PermissionDeniedError } from '@anthropic-ai/sdk';
import OpenAI, { NotFoundError, PermissionDeniedError as OpenAIPermissionDenied } from 'openai';
import { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { accountWithKey, AdminClient, ADMIN_KEY } from '../support/money.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// Issue 31 item 1 (PRODUCT decision 25): model aliases, through the official clients.

const OPEN_KEY = 'sk-e2e-aliases-open-0123456789';
const SERVED_ONLY_KEY = 'sk-e2e-aliases-served-only-0123';
const OTHER_ONLY_KEY = 'sk-e2e-aliases-other-only-01234';
const NODE_KEY = 'sk-ant-node-aliases-0123';
const TIMEOUT = { timeout: 20_000 };

describe('model aliases (exact ids and * patterns)', () => {
  let gateway: TestGateway;
  let openaiNode: SimulatedNode;
  let anthropicNode: SimulatedNode;
  let admin: AdminClient;

  before(async () => {
    openaiNode = new SimulatedNode({ protocol: 'openai' });
    await openaiNode.listen(0);
    anthropicNode = new SimulatedNode({ protocol: 'anthropic', apiKey: NODE_KEY });
    await anthropicNode.listen(0);
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
nodes:
  - { id: oai, provider: openai, base_url: "${openaiNode.baseUrl}" }
  - { id: ant, provider: anthropic, base_url: "${anthropicNode.baseUrl}", api_key: ${NODE_KEY} }
  - { id: oai-native, provider: openai, base_url: "${openaiNode.baseUrl}", apis: [chat, responses] }
models:
  - id: served-chat
    aliases: [gpt-4o, "gpt-*", "*-codex"]
    routes: [{ node: oai, model: upstream-chat }]
  - id: served-claude
    aliases: ["claude-*"]
    routes: [{ node: ant, model: claude-upstream }]
  - id: other
    routes: [{ node: oai }]
  - id: native-responses
    aliases: ["o4-*"]
    routes: [{ node: oai-native, model: upstream-native }]
keys:
  - { key: ${OPEN_KEY} }
  - { key: ${SERVED_ONLY_KEY}, allowed_models: [served-chat] }
  - { key: ${OTHER_ONLY_KEY}, allowed_models: [other] }
`);
    admin = new AdminClient(gateway.baseUrl);
  });
  after(async () => {
    await gateway?.close();
    await openaiNode?.close();
    await anthropicNode?.close();
  });

  const openai = (key = OPEN_KEY) =>
    new OpenAI({ apiKey: key, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 10_000 });
  const anthropic = (key = OPEN_KEY) => new Anthropic({ apiKey: key, baseURL: gateway.origin, maxRetries: 0 });

  /** The usage row of a request, once written (rows are flushed in batches). */
  async function usageRow(requestId: string): Promise<Record<string, unknown>> {
    let row: Record<string, unknown> | undefined;
    await waitFor(async () => {
      const report = (await admin.usage({ request_id: requestId })) as { data: Array<Record<string, unknown>> };
      row = report.data[0];
      return row !== undefined;
    });
    return row as Record<string, unknown>;
  }

  test(
    'chat: an exact alias is answered with the id sent; the node gets its own name; the log line and the usage row have both',
    TIMEOUT,
    async () => {
      const { data: completion, response } = await openai()
        .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] })
        .withResponse();
      assert.equal(completion.model, 'gpt-4o');
      assert.equal((openaiNode.stats().lastRequest?.body as { model: string }).model, 'upstream-chat');
      const requestId = response.headers.get('x-request-id');
      const line = await gateway.logLine(requestId);
      assert.equal(line.model, 'gpt-4o');
      assert.equal(line.model_served, 'served-chat');
      const row = await usageRow(requestId as string);
      assert.equal(row.model, 'served-chat', 'the row is the served model’s: prices and stats keep their meaning');
      assert.equal(row.model_requested, 'gpt-4o');
    },
  );

  test('chat: a model’s own id is its own, with no model_requested', TIMEOUT, async () => {
    const { data: completion, response } = await openai()
      .chat.completions.create({ model: 'served-chat', messages: [{ role: 'user', content: 'Hello' }] })
      .withResponse();
    assert.equal(completion.model, 'served-chat');
    const row = await usageRow(response.headers.get('x-request-id') as string);
    assert.equal(row.model, 'served-chat');
    assert.equal(row.model_requested, null);
  });

  test('chat stream: every chunk names the id sent (a pattern match)', TIMEOUT, async () => {
    const stream = await openai().chat.completions.create({
      model: 'gpt-5.1-mini',
      messages: [{ role: 'user', content: 'Hello there' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      assert.equal(chunk.model, 'gpt-5.1-mini');
    }
    assert.ok(chunks > 1);
  });

  test('Responses: the longest pattern wins, JSON and stream name the id sent', TIMEOUT, async () => {
    // gpt-5-codex matches both "gpt-*" and "*-codex" (same model here); the reply names it as sent.
    const response = await openai().responses.create({ model: 'gpt-5-codex', input: 'Hello' });
    assert.equal(response.model, 'gpt-5-codex');
    const stream = await openai().responses.create({ model: 'gpt-5-codex', input: 'Hello', stream: true });
    const models = new Set<string>();
    for await (const event of stream) if ('response' in event) models.add(event.response.model);
    assert.deepEqual([...models], ['gpt-5-codex']);
  });

  test('Responses, natively to a node that serves them: JSON and stream name the id sent', TIMEOUT, async () => {
    const response = await openai().responses.create({ model: 'o4-mini', input: 'Hello' });
    assert.equal(response.model, 'o4-mini');
    const seen = openaiNode.stats().lastRequest;
    assert.equal(seen?.path.endsWith('/responses'), true, 'passed through natively');
    assert.equal((seen?.body as { model: string }).model, 'upstream-native');
    const stream = await openai().responses.create({ model: 'o4-mini', input: 'Hello', stream: true });
    const models = new Set<string>();
    for await (const event of stream) if ('response' in event) models.add(event.response.model);
    assert.deepEqual([...models], ['o4-mini']);
  });

  test('Messages, natively to an Anthropic node: the reply and message_start name the id sent', TIMEOUT, async () => {
    const message = await anthropic().messages.create({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    assert.equal(message.model, 'claude-sonnet-4-5-20250929');
    assert.equal((anthropicNode.stats().lastRequest?.body as { model: string }).model, 'claude-upstream');
    const stream = anthropic().messages.stream({
      model: 'claude-haiku-4-5',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    const final = await stream.finalMessage();
    assert.equal(final.model, 'claude-haiku-4-5');
  });

  test('Messages, translated to an OpenAI node: the reply and the stream name the id sent', TIMEOUT, async () => {
    const message = await anthropic().messages.create({
      model: 'gpt-4o',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    assert.equal(message.model, 'gpt-4o');
    const final = await anthropic()
      .messages.stream({ model: 'gpt-4o', max_tokens: 200, messages: [{ role: 'user', content: 'Hello' }] })
      .finalMessage();
    assert.equal(final.model, 'gpt-4o');
  });

  test(
    'policy is the served model’s: a key allowed the model may use its aliases; one allowed another model may not',
    TIMEOUT,
    async () => {
      const completion = await openai(SERVED_ONLY_KEY).chat.completions.create({
        model: 'gpt-anything',
        messages: [{ role: 'user', content: 'Hello' }],
      });
      assert.equal(completion.model, 'gpt-anything');
      await assert.rejects(
        openai(OTHER_ONLY_KEY).chat.completions.create({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'Hi' }],
        }),
        (error) => error instanceof OpenAIPermissionDenied && error.code === 'access_denied',
      );
      await assert.rejects(
        anthropic(OTHER_ONLY_KEY).messages.create({
          model: 'claude-sonnet-4-5',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
        (error) => error instanceof PermissionDeniedError,
      );
    },
  );

  test(
    'a key whose allowed_models names an alias’s text, not the model it resolves to, is refused',
    TIMEOUT,
    async () => {
      const { secret } = await accountWithKey(admin, { id: 'alias-text', balance: 1 }, { allowed_models: ['gpt-4o'] });
      await assert.rejects(
        openai(secret).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }),
        (error) => error instanceof OpenAIPermissionDenied && error.code === 'access_denied',
      );
    },
  );

  test('token counting resolves aliases the same way (count_tokens, input_tokens)', TIMEOUT, async () => {
    const counted = await anthropic().messages.countTokens({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    assert.ok(counted.input_tokens > 0);
    const response = await fetch(`${gateway.baseUrl}/responses/input_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPEN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5-codex', input: 'Hello there' }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    await assert.rejects(
      anthropic().messages.countTokens({ model: 'llama-3', messages: [{ role: 'user', content: 'Hi' }] }),
      (error) => error instanceof Anthropic.NotFoundError,
    );
  });

  test('an id nothing matches is 404 model_unavailable', TIMEOUT, async () => {
    await assert.rejects(
      openai().chat.completions.create({ model: 'llama-3', messages: [{ role: 'user', content: 'Hi' }] }),
      (error) => error instanceof NotFoundError && error.code === 'model_unavailable',
    );
  });

  test(
    '/v1/models lists model ids, never aliases or patterns; /v1/models/{alias} answers under the id asked',
    TIMEOUT,
    async () => {
      const ids = [];
      for await (const model of openai().models.list()) ids.push(model.id);
      assert.deepEqual(ids, ['served-chat', 'served-claude', 'other', 'native-responses']);
      const anthropicIds = (await anthropic().models.list()).data.map((model) => model.id);
      assert.deepEqual(anthropicIds, ['served-chat', 'served-claude', 'other', 'native-responses']);

      const exact = await openai().models.retrieve('gpt-4o');
      assert.equal(exact.id, 'gpt-4o');
      assert.equal(exact.object, 'model');
      assert.equal((await openai().models.retrieve('claude-opus-4-1')).id, 'claude-opus-4-1');
      assert.equal((await anthropic().models.retrieve('claude-opus-4-1')).id, 'claude-opus-4-1');
      await assert.rejects(openai().models.retrieve('llama-3'), NotFoundError);
      await assert.rejects(openai(OTHER_ONLY_KEY).models.retrieve('gpt-4o'), NotFoundError);
    },
  );
});
