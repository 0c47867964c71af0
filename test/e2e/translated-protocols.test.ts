import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { SimulatedNode, type SimulatedNodeOptions } from '../../src/simulator/simulated-node.js';
import { postChat } from '../support/post-chat.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const API_KEY = 'sk-e2e-translated-0123456789';
const ANTHROPIC_KEY = 'sk-ant-node-key';
const GEMINI_KEY = 'gemini-node-key';
const TIMEOUT = { timeout: 10_000 };
const MESSAGES = [
  { role: 'system' as const, content: 'Answer briefly.' },
  { role: 'user' as const, content: 'Is the eastern switchyard open tonight?' },
];

/** The reasoning extensions the gateway adds to OpenAI's message and delta types. */
interface Extensions {
  reasoning_content?: string;
  thinking_blocks?: Array<{ type: string; thinking?: string; signature?: string; data?: string }>;
}

async function start(options: SimulatedNodeOptions): Promise<SimulatedNode> {
  const node = new SimulatedNode(options);
  await node.listen(0);
  return node;
}

function lastBody(node: SimulatedNode): Record<string, unknown> {
  const body = node.stats().lastRequest?.body;
  assert.ok(body !== null && typeof body === 'object', 'the node received a JSON body');
  return body as Record<string, unknown>;
}

/**
 * A node that answers every stream with a first event, then (a moment later, so the first
 * event has reached the client) an error event, in the protocol of the path: Anthropic
 * `event: error` or a Gemini error object.
 */
function startBrokenStreamServer(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if ((request.url ?? '').includes('/messages')) {
        response.write(
          'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_x","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
        );
        response.write(
          'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
        );
        response.write(
          'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Partly"}}\n\n',
        );
        setTimeout(
          () =>
            response.end(
              'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
            ),
          100,
        );
      } else {
        response.write(
          'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Partly"}]},"index":0}],"responseId":"r1"}\r\n\r\n',
        );
        setTimeout(
          () =>
            response.end(
              'data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n',
            ),
          100,
        );
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('the openai client through the gateway to Anthropic and Gemini nodes', () => {
  let openaiNode: SimulatedNode;
  let claude: SimulatedNode;
  let claudeOverloaded: SimulatedNode;
  let claudeSmall: SimulatedNode;
  let gemini: SimulatedNode;
  let geminiUnavailable: SimulatedNode;
  let geminiSmall: SimulatedNode;
  let broken: Server;
  let gateway: TestGateway;
  let client: OpenAI;

  before(async () => {
    openaiNode = await startSimulator();
    claude = await start({ protocol: 'anthropic', apiKey: ANTHROPIC_KEY });
    claudeOverloaded = await start({
      protocol: 'anthropic',
      apiKey: ANTHROPIC_KEY,
      faults: { failFirst: { status: 529, count: 1_000 } },
    });
    claudeSmall = await start({ protocol: 'anthropic', apiKey: ANTHROPIC_KEY, contextLength: 5 });
    gemini = await start({ protocol: 'gemini', apiKey: GEMINI_KEY });
    geminiUnavailable = await start({
      protocol: 'gemini',
      apiKey: GEMINI_KEY,
      faults: { failFirst: { status: 503, count: 1_000 } },
    });
    geminiSmall = await start({ protocol: 'gemini', apiKey: GEMINI_KEY, contextLength: 5 });
    broken = await startBrokenStreamServer();
    const brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/v1`;
    gateway = await startTestGateway(`
store: memory
health: { failure_threshold: 1000 }
nodes:
  - { id: oai, provider: openai, base_url: "${openaiNode.baseUrl}" }
  - { id: claude-overloaded, provider: anthropic, base_url: "${claudeOverloaded.baseUrl}", api_key: ${ANTHROPIC_KEY} }
  - { id: claude, provider: anthropic, base_url: "${claude.baseUrl}", api_key: ${ANTHROPIC_KEY} }
  - { id: claude-small, provider: anthropic, base_url: "${claudeSmall.baseUrl}", api_key: ${ANTHROPIC_KEY} }
  - { id: gem-unavailable, provider: gemini, base_url: "${geminiUnavailable.baseUrl}", api_key: ${GEMINI_KEY} }
  - { id: gem, provider: gemini, base_url: "${gemini.baseUrl}", api_key: ${GEMINI_KEY} }
  - { id: gem-small, provider: gemini, base_url: "${geminiSmall.baseUrl}", api_key: ${GEMINI_KEY} }
  - { id: broken-claude, provider: anthropic, base_url: "${brokenUrl}" }
  - { id: broken-gem, provider: gemini, base_url: "${brokenUrl}" }
  - { id: sim-claude, provider: simulated, simulated: { protocol: anthropic } }
  - { id: sim-gem, provider: simulated, simulated: { protocol: gemini } }
models:
  - id: gpt-reasoner
    reasoning: { default_effort: medium }
    routes: [{ node: oai }]
  - id: claude-reasoner
    default_max_tokens: 32000
    reasoning: { default_effort: medium }
    routes: [{ node: claude-overloaded }, { node: claude, model: claude-sonnet-4-5, priority: 1 }]
  - id: gemini-reasoner
    reasoning: { default_effort: medium }
    routes: [{ node: gem-unavailable }, { node: gem, model: gemini-2.5-flash, priority: 1 }]
  - id: claude-adaptive
    reasoning: { default_effort: low, style: level }
    routes: [{ node: claude, model: claude-opus-4-7 }]
  - id: gemini-3
    reasoning: { default_effort: medium, style: level, levels: { medium: high } }
    routes: [{ node: gem, model: gemini-3-pro }]
  - { id: claude-plain, routes: [{ node: claude }] }
  - { id: claude-tiny, routes: [{ node: claude-small }] }
  - { id: gemini-tiny, routes: [{ node: gem-small }] }
  - { id: claude-broken, routes: [{ node: broken-claude }] }
  - { id: gemini-broken, routes: [{ node: broken-gem }] }
  - { id: sim-claude-reasoner, default_max_tokens: 4000, reasoning: { default_effort: low }, routes: [{ node: sim-claude }] }
  - { id: sim-gemini-reasoner, reasoning: { default_effort: low }, routes: [{ node: sim-gem }] }
keys:
  - { key: ${API_KEY} }
`);
    client = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 8000 });
  });

  after(async () => {
    await gateway?.close();
    for (const node of [openaiNode, claude, claudeOverloaded, claudeSmall, gemini, geminiUnavailable, geminiSmall])
      await node?.close();
    await new Promise((resolve) => broken?.close(resolve));
  });

  /** The same client code for every node: a streamed answer with reasoning, its chunks checked. */
  async function streamedAnswer(model: string, effort: 'low' | 'medium' | 'high') {
    const stream = await client.chat.completions.create({
      model,
      messages: MESSAGES,
      stream: true,
      reasoning_effort: effort,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const first = chunks[0];
    assert.ok(first !== undefined);
    assert.equal(first.choices[0]?.delta.role, 'assistant', `${model}: the first delta names the role`);
    let reasoning = '';
    let content = '';
    let reasoningDeltas = 0;
    let contentDeltas = 0;
    const finishReasons: string[] = [];
    for (const chunk of chunks) {
      assert.equal(chunk.object, 'chat.completion.chunk');
      assert.equal(chunk.id, first.id, `${model}: one id for every chunk`);
      assert.equal(chunk.created, first.created);
      assert.equal(chunk.model, model, `${model}: the client's model id in every chunk`);
      const choice = chunk.choices[0];
      if (choice === undefined) continue;
      const delta = choice.delta as typeof choice.delta & Extensions;
      if (delta.reasoning_content) {
        assert.equal(content, '', `${model}: reasoning strictly before the answer`);
        reasoning += delta.reasoning_content;
        reasoningDeltas++;
      }
      if (delta.content) {
        content += delta.content;
        contentDeltas++;
      }
      if (choice.finish_reason) finishReasons.push(choice.finish_reason);
    }
    assert.deepEqual(finishReasons, ['stop'], `${model}: one finish chunk`);
    const last = chunks[chunks.length - 1];
    // PRODUCT.md decision 18: no include_usage asked, so the usage rides on the finish chunk.
    assert.equal(last?.choices[0]?.finish_reason, 'stop', `${model}: the usage rides on the finish chunk`);
    const usage = last?.usage;
    assert.ok(usage, `${model}: the last chunk carries usage`);
    // Every simulator emits one token per delta, so the node's exact usage must match what was streamed.
    assert.equal(usage.completion_tokens_details?.reasoning_tokens, reasoningDeltas, `${model}: reasoning tokens`);
    assert.equal(usage.completion_tokens, reasoningDeltas + contentDeltas, `${model}: completion tokens`);
    assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
    assert.ok(usage.prompt_tokens > 0);
    assert.ok(reasoning.length > 0 && content.length > 0, `${model}: reasoning and answer`);
    return { reasoningTokens: reasoningDeltas, usage, content };
  }

  test(
    'the same client code streams reasoning, answer and usage from an OpenAI, an Anthropic and a Gemini node',
    TIMEOUT,
    async () => {
      const results = [];
      for (const model of ['gpt-reasoner', 'claude-reasoner', 'gemini-reasoner'])
        results.push(await streamedAnswer(model, 'high'));
      assert.ok(results.every((result) => result.reasoningTokens > 0));

      const anthropicCall = claude.stats().lastRequest;
      assert.equal(anthropicCall?.path, '/v1/messages');
      assert.equal(anthropicCall?.headers['x-api-key'], ANTHROPIC_KEY);
      assert.equal(anthropicCall?.headers['anthropic-version'], '2023-06-01');
      assert.equal(anthropicCall?.headers.authorization, undefined, 'no bearer token to Anthropic');
      const anthropicBody = lastBody(claude);
      assert.equal(anthropicBody.model, 'claude-sonnet-4-5');
      assert.equal(anthropicBody.max_tokens, 32000, "the model's default_max_tokens");
      assert.deepEqual(anthropicBody.thinking, { type: 'enabled', budget_tokens: 24576 });
      assert.deepEqual(anthropicBody.system, [{ type: 'text', text: 'Answer briefly.' }]);
      assert.equal(anthropicBody.stream, true);
      assert.ok(claudeOverloaded.stats().requests >= 1, 'the 529 node was tried first and failed over');

      const geminiCall = gemini.stats().lastRequest;
      assert.equal(geminiCall?.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent');
      assert.equal(geminiCall?.headers['x-goog-api-key'], GEMINI_KEY);
      const geminiBody = lastBody(gemini);
      assert.deepEqual((geminiBody.generationConfig as Record<string, unknown>).thinkingConfig, {
        thinkingBudget: 24576,
        includeThoughts: true,
      });
      assert.deepEqual(geminiBody.systemInstruction, { parts: [{ text: 'Answer briefly.' }] });
      assert.ok(geminiUnavailable.stats().requests >= 1, 'the 503 node was tried first and failed over');
    },
  );

  test(
    'provider: simulated with simulated.protocol anthropic|gemini starts a node speaking that protocol',
    TIMEOUT,
    async () => {
      for (const model of ['sim-claude-reasoner', 'sim-gemini-reasoner']) {
        const { reasoningTokens } = await streamedAnswer(model, 'low');
        assert.equal(reasoningTokens, 16, `${model}: budget 1024 → 16 thinking tokens`);
      }
    },
  );

  test('reasoning rises with effort on Anthropic and Gemini nodes', TIMEOUT, async () => {
    for (const model of ['claude-reasoner', 'gemini-reasoner']) {
      const low = await streamedAnswer(model, 'low');
      const medium = await streamedAnswer(model, 'medium');
      const high = await streamedAnswer(model, 'high');
      assert.ok(
        low.reasoningTokens < medium.reasoningTokens && medium.reasoningTokens < high.reasoningTokens,
        `${model}: ${low.reasoningTokens} < ${medium.reasoningTokens} < ${high.reasoningTokens}`,
      );
    }
  });

  test(
    'level-style models get adaptive thinking with an effort (Anthropic) and a thinkingLevel (Gemini)',
    TIMEOUT,
    async () => {
      await streamedAnswer('claude-adaptive', 'high');
      const anthropicBody = lastBody(claude);
      assert.deepEqual(anthropicBody.thinking, { type: 'adaptive' });
      assert.deepEqual(anthropicBody.output_config, { effort: 'high' });
      await streamedAnswer('gemini-3', 'medium');
      const geminiBody = lastBody(gemini);
      assert.deepEqual(
        (geminiBody.generationConfig as Record<string, unknown>).thinkingConfig,
        { thinkingLevel: 'HIGH', includeThoughts: true },
        'levels.medium: high',
      );
    },
  );

  test(
    'non-streaming: reasoning_content, the answer, usage with reasoning tokens, and Anthropic thinking blocks sent back next turn',
    TIMEOUT,
    async () => {
      for (const model of ['claude-reasoner', 'gemini-reasoner']) {
        const completion = await client.chat.completions.create({ model, messages: MESSAGES, reasoning_effort: 'low' });
        const message = completion.choices[0]?.message as OpenAI.ChatCompletionMessage & Extensions;
        assert.equal(completion.object, 'chat.completion');
        assert.equal(completion.model, model);
        assert.equal(completion.choices[0]?.finish_reason, 'stop');
        assert.ok(message.content && message.reasoning_content, `${model}: answer and reasoning`);
        assert.equal(
          completion.usage?.completion_tokens_details?.reasoning_tokens,
          message.reasoning_content.split(' ').length,
        );
        assert.equal(
          completion.usage?.total_tokens,
          (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
        );
        if (model !== 'claude-reasoner') continue;
        const [block] = message.thinking_blocks ?? [];
        assert.equal(block?.type, 'thinking');
        assert.equal(block?.thinking, message.reasoning_content);
        assert.ok(block?.signature, 'the signature is kept');
        await client.chat.completions.create({
          model,
          messages: [
            ...MESSAGES,
            message as OpenAI.ChatCompletionAssistantMessageParam,
            { role: 'user', content: 'And tomorrow?' },
          ],
        });
        const sent = lastBody(claude).messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
        assert.equal(sent[1]?.role, 'assistant');
        assert.deepEqual(
          sent[1]?.content[0],
          { type: 'thinking', thinking: block?.thinking, signature: block?.signature },
          'signed thinking replayed first',
        );
        assert.equal(sent[1]?.content[1]?.type, 'text');
      }
    },
  );

  test('a model without reasoning sends no thinking and reports zero reasoning tokens', TIMEOUT, async () => {
    const completion = await client.chat.completions.create({
      model: 'claude-plain',
      messages: MESSAGES,
      reasoning_effort: 'high',
      temperature: 0.5,
    });
    const body = lastBody(claude);
    assert.equal(body.thinking, undefined);
    assert.equal(body.temperature, 0.5);
    assert.equal(body.max_tokens, 4096, 'the documented fallback when the model has no default');
    assert.equal((completion.choices[0]?.message as Extensions).reasoning_content, undefined);
    assert.equal(completion.usage?.completion_tokens_details?.reasoning_tokens, 0);
  });

  test("a node's client error comes back with its original status and body (spec 7.3)", TIMEOUT, async () => {
    const anthropic = await postChat(gateway.baseUrl, API_KEY, { model: 'claude-tiny', messages: MESSAGES });
    assert.equal(anthropic.status, 400);
    const anthropicError = (await anthropic.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(anthropicError.type, 'error');
    assert.equal(anthropicError.error.type, 'invalid_request_error');
    assert.match(anthropicError.error.message, /maximum context length/);

    await assert.rejects(
      client.chat.completions.create({ model: 'gemini-tiny', messages: MESSAGES }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal(error.status, 400);
        assert.deepEqual(Object.keys(error.error as object).sort(), ['code', 'message', 'status']);
        assert.equal((error.error as { status: string }).status, 'INVALID_ARGUMENT');
        return true;
      },
    );
  });

  test('a parameter the protocol cannot express is a 400 naming it, before any node is called', TIMEOUT, async () => {
    const before = claude.stats().requests;
    await assert.rejects(
      client.chat.completions.create({ model: 'claude-plain', messages: MESSAGES, temperature: 1.5 }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal(error.param, 'temperature');
        assert.equal(error.code, 'validation_failed');
        return true;
      },
    );
    await assert.rejects(
      client.chat.completions.create({
        model: 'gemini-reasoner',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
      }),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError && error.param === 'messages[0].content[0].image_url.url',
    );
    assert.equal(claude.stats().requests, before);
  });

  test(
    "an error event in the node's stream becomes the gateway's error event after what was already sent",
    TIMEOUT,
    async () => {
      for (const [model, message] of [
        ['claude-broken', /overloaded_error: Overloaded/],
        ['gemini-broken', /UNAVAILABLE: The model is overloaded/],
      ] as const) {
        const stream = await client.chat.completions.create({ model, messages: MESSAGES, stream: true });
        let content = '';
        await assert.rejects(
          async () => {
            for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
          },
          (error: unknown) => {
            assert.ok(error instanceof OpenAI.APIError);
            assert.equal(error.status, undefined, 'an in-stream error event');
            assert.match(error.message, message);
            return true;
          },
        );
        assert.equal(content, 'Partly', `${model}: the text before the error reached the client`);
      }
    },
  );
});
