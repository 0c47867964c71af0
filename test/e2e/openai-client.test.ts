import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { freePort } from '../support/free-port.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const API_KEY = 'sk-e2e-openai-client-0123456789';
const TIMEOUT = { timeout: 5000 };
const MESSAGES = [{ role: 'user' as const, content: 'Is the eastern switchyard open tonight?' }];

/** The reasoning text the gateway adds to OpenAI's message and delta types. */
interface WithReasoning {
  reasoning_content?: string;
  reasoning?: unknown;
}

function lastBody(node: SimulatedNode): Record<string, unknown> {
  const body = node.stats().lastRequest?.body;
  assert.ok(body !== null && typeof body === 'object', 'the node received a JSON body');
  return body as Record<string, unknown>;
}

describe('the official openai client against the gateway', () => {
  let main: SimulatedNode;
  let cutting: SimulatedNode;
  let gateway: TestGateway;
  let client: OpenAI;

  before(async () => {
    main = await startSimulator();
    cutting = await startSimulator({ faults: { cutAfterChunks: 4 } });
    const downPort = await freePort();
    gateway = await startTestGateway(
      `
store: memory
nodes:
  - { id: main, provider: openai, base_url: "${main.baseUrl}" }
  - { id: cutting, provider: openai, base_url: "${cutting.baseUrl}" }
  - { id: down, provider: openai, base_url: "http://127.0.0.1:${downPort}/v1", timeouts: { connect_ms: 1000 } }
  - { id: renaming, provider: simulated, simulated: { reasoning_field: reasoning } }
models:
  - id: reasoner
    reasoning: { default_effort: medium }
    routes: [{ node: main, model: upstream-reasoner }]
  - id: reasoner-low
    reasoning: { default_effort: low }
    routes: [{ node: main }]
  - id: plain
    routes: [{ node: main }]
  - id: renamed-reasoner
    reasoning: { default_effort: medium }
    routes: [{ node: renaming }]
  - id: cut-reasoner
    reasoning: { default_effort: low }
    routes: [{ node: cutting }]
  - id: down-model
    routes: [{ node: down }]
keys:
  - { key: ${API_KEY} }
`,
    );
    client = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 4000 });
  });

  after(async () => {
    await gateway?.close();
    await main?.close();
    await cutting?.close();
  });

  test('non-streaming: content, reasoning_content, consistent usage, id headers reach the node', TIMEOUT, async () => {
    const correlationId = 'e2e-corr-42';
    const { data, response } = await client.chat.completions
      .create({ model: 'reasoner', messages: MESSAGES }, { headers: { 'X-Correlation-Id': correlationId } })
      .withResponse();

    const choice = data.choices[0];
    assert.ok(choice !== undefined);
    assert.equal(data.object, 'chat.completion');
    assert.equal(choice.message.role, 'assistant');
    assert.ok((choice.message.content ?? '').length > 0, 'the answer has content');
    const reasoning = (choice.message as WithReasoning).reasoning_content;
    assert.equal(typeof reasoning, 'string');
    assert.ok((reasoning ?? '').length > 0, 'reasoning_content is not empty');

    const usage = data.usage;
    assert.ok(usage !== undefined);
    assert.ok(usage.prompt_tokens > 0 && usage.completion_tokens > 0);
    assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
    assert.ok((usage.completion_tokens_details?.reasoning_tokens ?? 0) > 0, 'reasoning tokens are reported');

    const requestId = response.headers.get('x-request-id');
    assert.match(requestId ?? '', /^req_/);
    assert.equal(response.headers.get('x-correlation-id'), correlationId);

    const seen = main.stats().lastRequest;
    assert.ok(seen !== undefined);
    assert.equal(seen.headers['x-correlation-id'], correlationId);
    assert.equal(seen.headers['x-request-id'], requestId);
    assert.equal(lastBody(main).model, 'upstream-reasoner', 'the node gets its own name for the model');
  });

  test('without a client correlation id, x-correlation-id is the request id (asResponse)', TIMEOUT, async () => {
    const response = await client.chat.completions.create({ model: 'plain', messages: MESSAGES }).asResponse();
    assert.equal(response.status, 200);
    const requestId = response.headers.get('x-request-id');
    assert.match(requestId ?? '', /^req_/);
    assert.equal(response.headers.get('x-correlation-id'), requestId);
    await response.arrayBuffer();
  });

  test(
    'streaming with reasoning: reasoning first, then content, then the usage on the finish chunk',
    TIMEOUT,
    async () => {
      const { data: stream, response } = await client.chat.completions
        .create({ model: 'reasoner', messages: MESSAGES, stream: true })
        .withResponse();
      assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
      assert.ok(response.headers.get('x-correlation-id'));

      const kinds: Array<'reasoning' | 'content'> = [];
      let reasoningText = '';
      let contentText = '';
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of stream) {
        chunks.push(chunk);
        for (const choice of chunk.choices) {
          const delta = choice.delta as typeof choice.delta & WithReasoning;
          assert.equal(delta.reasoning, undefined, 'never a `reasoning` field in a delta');
          if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
            kinds.push('reasoning');
            reasoningText += delta.reasoning_content;
          }
          if (typeof delta.content === 'string' && delta.content !== '') {
            kinds.push('content');
            contentText += delta.content;
          }
        }
      }
      assert.ok(reasoningText.length > 0, 'reasoning was streamed');
      assert.ok(contentText.length > 0, 'content was streamed');
      const firstContent = kinds.indexOf('content');
      assert.ok(
        kinds.slice(firstContent).every((kind) => kind === 'content'),
        'no reasoning after the first content chunk',
      );
      assert.ok(kinds.slice(0, firstContent).every((kind) => kind === 'reasoning'));

      const last = chunks[chunks.length - 1];
      assert.ok(last !== undefined);
      assert.equal(
        last.choices[0]?.finish_reason,
        'stop',
        'the usage rides on the finish chunk (PRODUCT.md decision 18)',
      );
      assert.ok(last.usage, 'the last chunk carries usage although the client did not ask for it');
      assert.equal(last.usage.total_tokens, last.usage.prompt_tokens + last.usage.completion_tokens);
      assert.ok((last.usage.completion_tokens_details?.reasoning_tokens ?? 0) > 0);
      assert.equal(chunks.slice(0, -1).filter((chunk) => chunk.usage).length, 0, 'only the last chunk has usage');

      const body = lastBody(main);
      assert.equal(body.stream, true);
      assert.deepEqual(body.stream_options, { include_usage: true });
    },
  );

  test(
    'reasoning_effort and reasoning.effort reach the node the same way; high reasons longer than low',
    TIMEOUT,
    async () => {
      const topLevel = await client.chat.completions.create({
        model: 'reasoner',
        messages: MESSAGES,
        reasoning_effort: 'high',
      });
      const topLevelBody = lastBody(main);
      assert.equal(topLevelBody.reasoning_effort, 'high');
      assert.equal(topLevelBody.reasoning, undefined);

      const nestedParams: ChatCompletionCreateParamsNonStreaming & { reasoning: { effort: string } } = {
        model: 'reasoner',
        messages: MESSAGES,
        reasoning: { effort: 'high' },
      };
      const nested = await client.chat.completions.create(nestedParams);
      const nestedBody = lastBody(main);
      assert.equal(nestedBody.reasoning_effort, 'high');
      assert.equal(nestedBody.reasoning, undefined);

      const high = (topLevel.choices[0]?.message as WithReasoning).reasoning_content ?? '';
      assert.equal(
        (nested.choices[0]?.message as WithReasoning).reasoning_content,
        high,
        'both forms give the same reply',
      );

      const low = await client.chat.completions.create({
        model: 'reasoner',
        messages: MESSAGES,
        reasoning_effort: 'low',
      });
      assert.equal(lastBody(main).reasoning_effort, 'low');
      const lowText = (low.choices[0]?.message as WithReasoning).reasoning_content ?? '';
      assert.ok(lowText.length > 0);
      assert.ok(
        high.length > lowText.length,
        `high (${high.length} chars) reasons longer than low (${lowText.length})`,
      );
      assert.ok(
        (topLevel.usage?.completion_tokens_details?.reasoning_tokens ?? 0) >
          (low.usage?.completion_tokens_details?.reasoning_tokens ?? 0),
      );
    },
  );

  test('no effort given: the model default goes to the node', TIMEOUT, async () => {
    await client.chat.completions.create({ model: 'reasoner-low', messages: MESSAGES });
    assert.equal(lastBody(main).reasoning_effort, 'low');
    await client.chat.completions.create({ model: 'reasoner', messages: MESSAGES });
    assert.equal(lastBody(main).reasoning_effort, 'medium');
  });

  test(
    'a model without reasoning: no reasoning parameters reach the node, whatever the client sent',
    TIMEOUT,
    async () => {
      const withEffort = await client.chat.completions.create({
        model: 'plain',
        messages: MESSAGES,
        reasoning_effort: 'high',
      });
      let body = lastBody(main);
      assert.equal('reasoning_effort' in body, false);
      assert.equal('reasoning' in body, false);
      assert.equal((withEffort.choices[0]?.message as WithReasoning).reasoning_content, undefined);

      const nestedParams: ChatCompletionCreateParamsNonStreaming & { reasoning: { effort: string } } = {
        model: 'plain',
        messages: MESSAGES,
        reasoning: { effort: 'high' },
      };
      await client.chat.completions.create(nestedParams);
      body = lastBody(main);
      assert.equal('reasoning_effort' in body, false);
      assert.equal('reasoning' in body, false);
    },
  );

  test(
    'a node answering with `reasoning`: the client still gets reasoning_content (JSON and stream)',
    TIMEOUT,
    async () => {
      const completion = await client.chat.completions.create({ model: 'renamed-reasoner', messages: MESSAGES });
      const message = completion.choices[0]?.message as (OpenAI.ChatCompletionMessage & WithReasoning) | undefined;
      assert.ok(message !== undefined);
      assert.ok((message.reasoning_content ?? '').length > 0, 'reasoning_content present');
      assert.equal('reasoning' in message, false, 'no `reasoning` field in the message');

      const streamParams: ChatCompletionCreateParamsStreaming = {
        model: 'renamed-reasoner',
        messages: MESSAGES,
        stream: true,
      };
      const stream = await client.chat.completions.create(streamParams);
      let reasoningText = '';
      for await (const chunk of stream) {
        for (const choice of chunk.choices) {
          const delta = choice.delta as typeof choice.delta & WithReasoning;
          assert.equal('reasoning' in delta, false, 'no `reasoning` field in a delta');
          reasoningText += delta.reasoning_content ?? '';
        }
      }
      assert.equal(reasoningText, message.reasoning_content, 'the streamed reasoning equals the JSON one');
    },
  );

  test('400: BadRequestError with code, param, type and request id', TIMEOUT, async () => {
    const error = await client.chat.completions.create({ model: 'reasoner', messages: MESSAGES, temperature: 5 }).then(
      () => assert.fail('expected a 400'),
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.status, 400);
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.param, 'temperature');
    assert.equal(error.type, 'invalid_request_error');
    const body = error.error as { request_id?: unknown };
    assert.match(String(body.request_id), /^req_/);
    assert.equal(error.requestID, body.request_id);
  });

  test('401: AuthenticationError invalid_api_key for a wrong key', TIMEOUT, async () => {
    const stranger = new OpenAI({
      apiKey: 'sk-not-a-known-key-000000',
      baseURL: gateway.baseUrl,
      maxRetries: 0,
      timeout: 4000,
    });
    await assert.rejects(
      stranger.chat.completions.create({ model: 'reasoner', messages: MESSAGES }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
        assert.equal(error.status, 401);
        assert.equal(error.code, 'invalid_api_key');
        assert.equal(error.type, 'authentication_error');
        return true;
      },
    );
  });

  test('404: NotFoundError model_unavailable for an unknown model', TIMEOUT, async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'no-such-model', messages: MESSAGES }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.NotFoundError, String(error));
        assert.equal(error.code, 'model_unavailable');
        assert.equal(error.param, 'model');
        return true;
      },
    );
  });

  test('503: InternalServerError router_unavailable when every node fails', TIMEOUT, async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'down-model', messages: MESSAGES }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.InternalServerError, String(error));
        assert.equal(error.status, 503);
        assert.equal(error.code, 'router_unavailable');
        assert.equal(error.type, 'service_unavailable');
        assert.ok(error.headers.get('retry-after'), 'Retry-After is set');
        return true;
      },
    );
  });

  test(
    'a node failing mid-stream: iteration throws an APIError carrying the gateway error object',
    TIMEOUT,
    async () => {
      const { data: stream, response } = await client.chat.completions
        .create({ model: 'cut-reasoner', messages: MESSAGES, stream: true })
        .withResponse();
      const requestId = response.headers.get('x-request-id');
      let received = 0;
      const error = await (async () => {
        for await (const chunk of stream) {
          assert.ok(chunk.object === 'chat.completion.chunk');
          received++;
        }
      })().then(
        () => assert.fail('the stream should fail'),
        (failure: unknown) => failure,
      );
      assert.ok(received > 0, 'chunks before the cut were relayed');
      assert.ok(error instanceof OpenAI.APIError, String(error));
      const body = error.error as { code?: unknown; type?: unknown; message?: unknown; request_id?: unknown };
      // A node connection dropped mid-stream is the node's failure (spec 7.2: 502 bad_gateway), not an unexpected gateway one.
      assert.equal(body.code, 'bad_gateway');
      assert.equal(body.type, 'service_unavailable');
      assert.equal(typeof body.message, 'string');
      assert.equal(body.request_id, requestId);
      assert.equal(error.code, 'bad_gateway');
      assert.ok(error.message.length > 0);
    },
  );
});
