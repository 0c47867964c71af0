import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { ADMIN_KEY, AdminClient, usdToNano } from '../support/money.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The Anthropic SDK unchanged against Switchyard's Messages door (issue 19): on an
 * Anthropic-protocol node (native pass-through) and on OpenAI- and Gemini-protocol nodes
 * (translated); money, limits, failover and ids as on the chat endpoint.
 */

const KEY = 'sk-swy-messages-rich-0001';
const BROKE_KEY = 'sk-swy-messages-broke-001';
const LIMITED_KEY = 'sk-swy-messages-limited-1';
const NO_STREAM_KEY = 'sk-swy-messages-nostream1';
const THIN_KEY = 'sk-swy-messages-thin-0001';
const NODE_KEY = 'sk-ant-node-secret-key';
const PRICE = { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75 };
const TOOL_SCRIPT = {
  '*': [
    {
      when: { tools_offered: true, last_role: 'user' as const },
      call: { tool: 'Read', arguments: { file_path: '/tmp/notes.txt' } },
    },
    { when: { last_role: 'tool' as const }, answer: 'The file says: {{tool_result}}' },
  ],
};
const READ_TOOL = {
  name: 'Read',
  description: 'Reads a file from disk',
  input_schema: { type: 'object' as const, properties: { file_path: { type: 'string' } }, required: ['file_path'] },
};
/** An Anthropic node that streams a little, then (once that reached the client) fails with its own error event. */
function startBrokenAnthropicNode(): Promise<Server> {
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        event('message_start', {
          message: {
            id: 'msg_x',
            type: 'message',
            role: 'assistant',
            model: 'm',
            content: [],
            usage: { input_tokens: 3, output_tokens: 1 },
          },
        }) +
          event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
          event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Partly' } }),
      );
      setTimeout(
        () => response.end(event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })),
        100,
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const MODELS = { native: 'claude-native', chat: 'claude-on-chat', gemini: 'claude-on-gemini' } as const;

describe('the Anthropic SDK through the Messages front door', () => {
  let claude: SimulatedNode;
  let overloaded: SimulatedNode;
  let chatNode: SimulatedNode;
  let gemini: SimulatedNode;
  let second: SimulatedNode;
  let broken: Server;
  let claude2: SimulatedNode;
  let gateway: TestGateway;
  let client: Anthropic;
  let admin: AdminClient;

  before(async () => {
    claude = await startSimulator({ protocol: 'anthropic', apiKey: NODE_KEY, scripts: TOOL_SCRIPT });
    overloaded = await startSimulator({
      protocol: 'anthropic',
      apiKey: NODE_KEY,
      faults: { failFirst: { status: 529, count: 1_000_000 } },
    });
    chatNode = await startSimulator({ scripts: TOOL_SCRIPT });
    gemini = await startSimulator({ protocol: 'gemini', apiKey: 'gem-key', scripts: TOOL_SCRIPT });
    second = await startSimulator({ scripts: TOOL_SCRIPT, firstByteMs: 700 });
    broken = await startBrokenAnthropicNode();
    claude2 = await startSimulator({ protocol: 'anthropic', apiKey: NODE_KEY, scripts: TOOL_SCRIPT });
    const pricing = `{ input: ${PRICE.input}, output: ${PRICE.output}, cached_input: ${PRICE.cached_input}, cache_write: ${PRICE.cache_write} }`;
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
health: { failure_threshold: 1000 }
nodes:
  - { id: claude-529, provider: anthropic, base_url: "${overloaded.baseUrl}", api_key: ${NODE_KEY} }
  - { id: claude, provider: anthropic, base_url: "${claude.baseUrl}", api_key: ${NODE_KEY} }
  - { id: chat-node, provider: openai, base_url: "${chatNode.baseUrl}" }
  - { id: gem, provider: gemini, base_url: "${gemini.baseUrl}", api_key: gem-key }
  - { id: chat-b, provider: openai, base_url: "${second.baseUrl}" }
  - { id: claude-2, provider: anthropic, base_url: "${claude2.baseUrl}", api_key: ${NODE_KEY} }
  - { id: broken-claude, provider: anthropic, base_url: "http://127.0.0.1:${(broken.address() as AddressInfo).port}/v1" }
http: { sse_keepalive_ms: 250 }
models:
  - id: ${MODELS.native}
    context_length: 200000    # the bound reserved for a file by id (docs/security-and-limits.md)
    max_output_tokens: 8000
    reasoning: { default_effort: low, style: level }
    pricing: ${pricing}
    # Web search allowed (and priced per call): a forced search reaches the node (issue 28 finding 10).
    priced_features: { server_tools: { web_search: { usd_per_call: 0.01 } } }
    routes: [{ node: claude-529 }, { node: claude, model: claude-sonnet-4-6, priority: 1 }]
  - { id: ${MODELS.chat}, reasoning: { default_effort: low }, pricing: ${pricing}, routes: [{ node: chat-node, model: qwen3 }] }
  - { id: ${MODELS.gemini}, reasoning: { default_effort: low }, pricing: ${pricing}, routes: [{ node: gem, model: gemini-2.5-flash }] }
  - { id: claude-broken, routes: [{ node: broken-claude }] }
  - { id: claude-cache-priced, pricing: { input: 0, output: 0, cache_write: 100, cache_write_1h: 100 }, routes: [{ node: claude, model: claude-sonnet-4-6 }] }
  - { id: claude-2-only, routes: [{ node: claude-2, model: claude-sonnet-4-6 }] }
  - { id: claude-pair, routes: [{ node: claude, model: claude-sonnet-4-6 }, { node: claude-2, model: claude-sonnet-4-6, priority: 1 }] }
  - { id: only-b, reasoning: { default_effort: low }, routes: [{ node: chat-b, model: qwen3 }] }
  - { id: pair, reasoning: { default_effort: low }, routes: [{ node: chat-node, model: qwen3 }, { node: chat-b, model: qwen3, priority: 1 }] }
  - { id: overloaded-then-silent, reasoning: { default_effort: low }, routes: [{ node: claude-529 }, { node: chat-b, model: qwen3, priority: 1 }] }
accounts:
  - { id: rich, balance: 100 }
  - { id: broke, balance: 0 }
  - { id: thin, balance: 0.01 }
keys:
  - { key: ${KEY}, account: rich }
  - { key: ${BROKE_KEY}, account: broke }
  - { key: ${LIMITED_KEY}, account: rich, limits: { rpm: 1 } }
  - { key: ${NO_STREAM_KEY}, account: rich, policy: { streaming: false } }
  - { key: ${THIN_KEY}, account: thin }
`);
    client = new Anthropic({ apiKey: KEY, baseURL: gateway.origin, maxRetries: 0, timeout: 10_000 });
    admin = new AdminClient(gateway.baseUrl);
  });

  after(async () => {
    await gateway?.close();
    for (const node of [claude, overloaded, chatNode, gemini, second, claude2]) await node?.close();
    await new Promise((resolve) => broken?.close(resolve));
  });

  for (const [kind, model] of Object.entries(MODELS)) {
    test(`${kind}: create, then the same turn streamed; finalMessage agrees, ids and usage as Anthropic's`, async () => {
      const params = {
        model,
        max_tokens: 2000,
        messages: [{ role: 'user' as const, content: 'Name a railway switch.' }],
      };
      const { data: message, response } = await client.messages.create(params).withResponse();
      assert.equal(message.type, 'message');
      assert.equal(message.model, model, 'the client model id');
      assert.equal(message.stop_reason, 'end_turn');
      const text = message.content.filter((block) => block.type === 'text');
      assert.equal(text.length, 1);
      assert.ok(text[0]?.type === 'text' && text[0].text.length > 0);
      const requestId = response.headers.get('request-id');
      assert.ok(requestId !== null && requestId === response.headers.get('x-request-id'));
      if (kind !== 'native') assert.equal(message.id, `msg_${requestId}`);
      assert.ok(message.usage.input_tokens > 0 && message.usage.output_tokens > 0);

      const stream = client.messages.stream(params);
      const types: string[] = [];
      stream.on('streamEvent', (event) => types.push(event.type));
      const final = await stream.finalMessage();
      assert.equal(types[0], 'message_start');
      assert.equal(types.at(-1), 'message_stop');
      assert.equal(final.stop_reason, 'end_turn');
      assert.deepEqual(
        final.content.filter((block) => block.type === 'text').map((block) => block.type === 'text' && block.text),
        text.map((block) => block.type === 'text' && block.text),
        'the same answer streamed',
      );
      assert.ok(final.usage.output_tokens > 0);
    });

    test(`${kind}: a two-turn tool loop with thinking — tool_use, then the answer from the tool result`, async () => {
      const first = await client.messages.create({
        model,
        max_tokens: 4000,
        thinking: { type: 'adaptive' },
        output_config: { effort: 'low' },
        tools: [READ_TOOL],
        messages: [{ role: 'user', content: 'What is in notes.txt?' }],
      } as Anthropic.MessageCreateParamsNonStreaming);
      assert.equal(first.stop_reason, 'tool_use');
      const call = first.content.find((block) => block.type === 'tool_use');
      assert.ok(call?.type === 'tool_use');
      assert.equal(call.name, 'Read');
      assert.deepEqual(call.input, { file_path: '/tmp/notes.txt' });
      const thinking = first.content.filter((block) => block.type === 'thinking');
      assert.ok(thinking.length > 0, 'thinking came back');
      assert.equal(first.content[0]?.type, 'thinking', 'thinking first');

      const stream = client.messages.stream({
        model,
        max_tokens: 4000,
        thinking: { type: 'adaptive' },
        tools: [READ_TOOL],
        messages: [
          { role: 'user', content: 'What is in notes.txt?' },
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: call.id,
                content: [
                  { type: 'text', text: 'tracks 4 and 5' },
                  { type: 'text', text: 'are closed' },
                ],
              },
            ],
          },
        ],
      } as Anthropic.MessageCreateParamsStreaming);
      const second = await stream.finalMessage();
      assert.equal(second.stop_reason, 'end_turn');
      const answer = second.content.find((block) => block.type === 'text');
      assert.ok(answer?.type === 'text');
      assert.equal(answer.text, 'The file says: tracks 4 and 5\nare closed');
    });
  }

  test('native: the body reaches the node unchanged but model and max_tokens; version and beta forwarded; the node key', async () => {
    claude.resetStats();
    const body = {
      model: MODELS.native,
      max_tokens: 100_000,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
      metadata: { user_id: 'u-1' },
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
    };
    // Raw HTTP: the SDK puts its own anthropic-version over one given per request.
    const response = await fetch(`${gateway.origin}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': KEY,
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'context-management-2025-06-27,effort-2025-11-24',
      },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { model: string }).model, MODELS.native);
    const seen = claude.stats().lastRequest;
    assert.ok(seen !== undefined);
    assert.deepEqual(seen.body, { ...body, model: 'claude-sonnet-4-6', max_tokens: 8000 });
    assert.equal(seen.headers['anthropic-version'], '2023-06-01');
    assert.equal(seen.headers['anthropic-beta'], 'context-management-2025-06-27,effort-2025-11-24');
    assert.equal(seen.headers['x-api-key'], NODE_KEY, "the node's key, never the client's");
  });

  test("native: what only Anthropic runs (a forced server tool the model allows, a server tool's turn, a file by id) passes; translated it is a 400", async () => {
    const history = [
      { role: 'user', content: 'Search the timetable.' },
      {
        role: 'assistant',
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'timetable' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
          { type: 'text', text: 'Nothing found.' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'file', file_id: 'file_011' } },
          { type: 'text', text: 'And this?' },
        ],
      },
    ];
    const body = {
      max_tokens: 300,
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }],
      tool_choice: { type: 'tool', name: 'web_search' },
      stop_sequences: ['a', 'b', 'c', 'd', 'e'],
      messages: history,
    };
    claude.resetStats();
    const answer = await client.messages.create({ ...body, model: MODELS.native } as never);
    assert.equal(answer.type, 'message');
    assert.deepEqual(
      (claude.stats().lastRequest?.body as { messages: unknown }).messages,
      history,
      'the history reaches the node as sent',
    );
    const refused = await client.messages.create({ ...body, model: MODELS.chat } as never).then(
      () => assert.fail('should be refused'),
      (failure: unknown) => failure,
    );
    assert.ok(refused instanceof Anthropic.BadRequestError);
  });

  test('an effort the model does not list: the Anthropic node judges it natively; a translated model refuses it', async () => {
    const body = {
      max_tokens: 3000,
      thinking: { type: 'adaptive' },
      output_config: { effort: 'max' },
      messages: [{ role: 'user', content: 'Think hard.' }],
    };
    claude.resetStats();
    const answer = await client.messages.create({ ...body, model: MODELS.native } as never);
    assert.equal(answer.type, 'message');
    assert.deepEqual((claude.stats().lastRequest?.body as { output_config: unknown }).output_config, { effort: 'max' });
    await assert.rejects(client.messages.create({ ...body, model: MODELS.chat } as never), Anthropic.BadRequestError);
  });

  test('translated: context_management and its beta are dropped, server tools withdrawn, the answer still comes', async () => {
    chatNode.resetStats();
    const message = await client.messages.create(
      {
        model: MODELS.chat,
        max_tokens: 500,
        messages: [{ role: 'user', content: 'Hi' }],
        context_management: { edits: [] },
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      } as never,
      { headers: { 'anthropic-beta': 'context-management-2025-06-27' } },
    );
    assert.equal(message.stop_reason, 'end_turn');
    const seen = chatNode.stats().lastRequest;
    const body = seen?.body as Record<string, unknown>;
    assert.equal(body.context_management, undefined);
    assert.equal(body.tools, undefined);
    assert.equal(seen?.headers['anthropic-beta'], undefined);
  });

  test('countTokens counts with the gateway tokenizer and never reaches a node', async () => {
    const before = claude.stats().requests + chatNode.stats().requests;
    const small = await client.messages.countTokens({
      model: MODELS.native,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const large = await client.messages.countTokens({
      model: MODELS.chat,
      system: 'You are a careful railway dispatcher.',
      tools: [READ_TOOL],
      messages: [{ role: 'user', content: 'Tell me about every switch on the eastern line in detail, please.' }],
    });
    assert.ok(small.input_tokens > 0 && large.input_tokens > small.input_tokens);
    assert.equal(claude.stats().requests + chatNode.stats().requests, before);
    await assert.rejects(
      client.messages.countTokens({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
      Anthropic.NotFoundError,
    );
  });

  test('affinity: a turn carrying thinking that node chat-b made goes to chat-b first, though chat-node ranks first', async () => {
    const question = { role: 'user' as const, content: 'What is in notes.txt?' };
    const first = await client.messages.create({
      model: 'only-b',
      max_tokens: 2000,
      tools: [READ_TOOL],
      messages: [question],
    });
    const call = first.content.find((block) => block.type === 'tool_use');
    assert.ok(call?.type === 'tool_use' && first.content[0]?.type === 'thinking');
    const result = {
      role: 'user' as const,
      content: [{ type: 'tool_result' as const, tool_use_id: call.id, content: 'ok' }],
    };
    const firstNodeOf = async (content: Anthropic.ContentBlockParam[]) => {
      const { response } = await client.messages
        .create({
          model: 'pair',
          max_tokens: 2000,
          tools: [READ_TOOL],
          messages: [question, { role: 'assistant', content }, result],
        })
        .withResponse();
      return (await gateway.logLine(response.headers.get('request-id'))).attempts?.[0]?.node;
    };
    assert.equal(await firstNodeOf(first.content), 'chat-b');
    assert.equal(await firstNodeOf(first.content.filter((block) => block.type !== 'thinking')), 'chat-node');
    // The same history to an Anthropic node: the gateway's envelope never reaches it (rule A16).
    claude.resetStats();
    await client.messages.create({
      model: MODELS.native,
      max_tokens: 2000,
      tools: [READ_TOOL],
      messages: [question, { role: 'assistant', content: first.content }, result],
    });
    const sent = claude.stats().lastRequest?.body as { messages: Array<{ content: Array<{ type: string }> }> };
    assert.deepEqual(
      sent.messages[1]?.content.map((block) => block.type),
      first.content.filter((block) => block.type !== 'thinking').map((block) => block.type),
    );
  });

  for (const streamed of [false, true]) {
    test(`affinity: a turn carrying an Anthropic signature node claude-2 made goes to claude-2 first (first turn ${streamed ? 'streamed' : 'JSON'})`, async () => {
      const question = { role: 'user' as const, content: `What is in notes.txt? (${String(streamed)})` };
      const params = {
        model: 'claude-2-only',
        max_tokens: 4000,
        thinking: { type: 'adaptive' },
        tools: [READ_TOOL],
        messages: [question],
      } as Anthropic.MessageCreateParamsNonStreaming;
      const first = streamed
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
      const call = first.content.find((block) => block.type === 'tool_use');
      const thinking = first.content.find((block) => block.type === 'thinking');
      assert.ok(call?.type === 'tool_use' && thinking?.type === 'thinking' && !/^swy\d\./.test(thinking.signature));
      const result = {
        role: 'user' as const,
        content: [{ type: 'tool_result' as const, tool_use_id: call.id, content: 'ok' }],
      };
      const firstNodeOf = async (content: Anthropic.ContentBlockParam[]) => {
        const { response } = await client.messages
          .create({
            model: 'claude-pair',
            max_tokens: 4000,
            tools: [READ_TOOL],
            messages: [question, { role: 'assistant', content }, result],
          })
          .withResponse();
        return (await gateway.logLine(response.headers.get('request-id'))).attempts?.[0]?.node;
      };
      assert.equal(await firstNodeOf(first.content), 'claude-2');
      assert.equal(await firstNodeOf(first.content.filter((block) => block.type !== 'thinking')), 'claude');
    });
  }

  test('a silent node gets event: ping keep-alives, then the stream', async () => {
    const response = await fetch(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'only-b',
        max_tokens: 50,
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    });
    const text = await response.text();
    assert.match(text, /^event: ping\ndata: \{"type":"ping"\}\n\n/);
    assert.ok(text.indexOf('event: message_start') > 0);
    assert.ok(text.trimEnd().endsWith('event: message_stop\ndata: {"type":"message_stop"}'));
    assert.ok(!text.includes('[DONE]'));
  });

  test('a keep-alive during the second attempt: the headers carry the attempts finished so far', async () => {
    const response = await fetch(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'overloaded-then-silent',
        max_tokens: 50,
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    });
    const text = await response.text();
    assert.match(text, /^event: ping\n/, 'the headers went out with a keep-alive');
    assert.ok(text.trimEnd().endsWith('event: message_stop\ndata: {"type":"message_stop"}'));
    const line = await gateway.logLine(response.headers.get('request-id'));
    assert.deepEqual(
      line.attempts?.map((attempt) => attempt.node),
      ['claude-529', 'chat-b'],
    );
    assert.equal(
      response.headers.get('x-switchyard-attempts'),
      '1',
      `the 529 attempt (${line.attempts?.[0]?.ms} ms, before the 250 ms keep-alive), not the silent one`,
    );
  });

  test('models: Anthropic list and model shapes with anthropic-version', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list({ limit: 2 })) {
      assert.equal(model.type, 'model');
      ids.push(model.id);
    }
    assert.deepEqual(
      ids.sort(),
      [
        ...Object.values(MODELS),
        'claude-2-only',
        'claude-broken',
        'claude-cache-priced',
        'claude-pair',
        'only-b',
        'overloaded-then-silent',
        'pair',
      ].sort(),
    );
    const one = await client.models.retrieve(MODELS.native);
    assert.equal(one.id, MODELS.native);
    assert.match(one.created_at, /^\d{4}-\d\d-\d\dT/);
    const missing = await client.models.retrieve('no-such-model').then(
      () => assert.fail('should be 404'),
      (failure: unknown) => failure,
    );
    assert.ok(missing instanceof Anthropic.NotFoundError);
    assert.equal((missing.error as { error: { type: string } }).error.type, 'not_found_error');
    const unauthorized = await new Anthropic({
      apiKey: 'sk-wrong-key-000000',
      baseURL: gateway.origin,
      maxRetries: 0,
    }).models
      .list()
      .then(
        () => assert.fail('should be 401'),
        (failure: unknown) => failure,
      );
    assert.ok(unauthorized instanceof Anthropic.AuthenticationError);
    assert.equal((unauthorized.error as { type: string }).type, 'error');
    const openaiShape = (await (
      await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${KEY}` } })
    ).json()) as { object: string };
    assert.equal(openaiShape.object, 'list');
  });

  test('every error class: 401, 403, 404, 400, 402, 429 with Retry-After, 5xx — Anthropic bodies with the request id', async () => {
    const params = { model: MODELS.chat, max_tokens: 50, messages: [{ role: 'user' as const, content: 'Hi' }] };
    const expectError = async (
      promise: Promise<unknown>,
      kind: abstract new (...args: never[]) => InstanceType<typeof Anthropic.APIError>,
      type: string,
    ) => {
      const error = await promise.then(
        () => assert.fail('should have failed'),
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof kind, `${kind.name}, got ${String(error)}`);
      const body = error.error as { type: string; error: { type: string }; request_id: string };
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, type);
      assert.equal(body.request_id, error.requestID);
      assert.ok(error.requestID);
      return error;
    };
    await expectError(
      new Anthropic({ apiKey: 'sk-wrong-key-000000', baseURL: gateway.origin, maxRetries: 0 }).messages.create(params),
      Anthropic.AuthenticationError,
      'authentication_error',
    );
    await expectError(
      new Anthropic({ apiKey: NO_STREAM_KEY, baseURL: gateway.origin, maxRetries: 0 }).messages.create({
        ...params,
        stream: true,
      }),
      Anthropic.PermissionDeniedError,
      'permission_error',
    );
    await expectError(
      client.messages.create({ ...params, model: 'no-such-model' }),
      Anthropic.NotFoundError,
      'not_found_error',
    );
    const invalid = await expectError(
      client.messages.create({ ...params, temperature: 7 } as never),
      Anthropic.BadRequestError,
      'invalid_request_error',
    );
    assert.match(invalid.message, /temperature/);
    await expectError(
      new Anthropic({ apiKey: BROKE_KEY, baseURL: gateway.origin, maxRetries: 0 }).messages.create(params),
      Anthropic.APIError,
      'billing_error',
    );
    const limited = new Anthropic({ apiKey: LIMITED_KEY, baseURL: gateway.origin, maxRetries: 0 });
    await limited.messages.create(params);
    const rateLimited = await expectError(
      limited.messages.create(params),
      Anthropic.RateLimitError,
      'rate_limit_error',
    );
    assert.ok(Number(rateLimited.headers?.get('retry-after')) > 0);
    chatNode.setFaults({ failFirst: { status: 500, count: 1_000 } });
    try {
      await expectError(client.messages.create(params), Anthropic.InternalServerError, 'overloaded_error');
    } finally {
      chatNode.setFaults({});
    }
  });

  test("an Anthropic node's own 400 passes through unchanged", async () => {
    const error = await client.messages
      .create({
        model: MODELS.native,
        max_tokens: 3000,
        thinking: { type: 'enabled', budget_tokens: 10 },
        messages: [{ role: 'user', content: 'x' }],
      })
      .then(
        () => assert.fail('should fail'),
        (failure: unknown) => failure,
      );
    assert.ok(error instanceof Anthropic.BadRequestError);
    assert.match(error.message, /budget_tokens/);
  });

  test('money: reserved, settled exactly, a ledger row for the messages door; failover past a 529 node first', async () => {
    const before = await admin.balanceNano('rich');
    const { data: message, response } = await client.messages
      .create({ model: MODELS.native, max_tokens: 300, messages: [{ role: 'user', content: 'Count to three.' }] })
      .withResponse();
    const requestId = response.headers.get('request-id') as string;
    const line = await gateway.logLine(requestId);
    assert.deepEqual(
      line.attempts?.map((attempt) => attempt.node),
      ['claude-529', 'claude'],
    );
    let row: Record<string, unknown> | undefined;
    await waitFor(
      async () => {
        const rows = (await admin.usage({ account: 'rich', limit: '50' })) as { data: Array<Record<string, unknown>> };
        row = rows.data.find((entry) => entry.request_id === requestId);
        return row !== undefined;
      },
      3000,
      { what: 'the usage row' },
    );
    assert.equal(row?.front_door, 'messages');
    assert.equal(row?.node, 'claude');
    const usage = message.usage;
    const prompt = usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
    assert.equal(row?.prompt_tokens, prompt);
    assert.equal(row?.completion_tokens, usage.output_tokens);
    const cost = usdToNano((usage.input_tokens * PRICE.input + usage.output_tokens * PRICE.output) / 1e6);
    assert.equal(row?.cost_nano, cost);
    await waitFor(async () => (await admin.balanceNano('rich')) === before - cost, 3000, {
      what: 'the balance settled',
    });
  });

  test('cache_control is priced in the reservation: a prompt that would write 1-hour cache is refused where plain input passes', async () => {
    const thin = new Anthropic({ apiKey: THIN_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const rules = 'Switch 14 serves the eastern yard. '.repeat(400);
    const system = (cache: boolean) => [
      {
        type: 'text' as const,
        text: rules,
        ...(cache ? { cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } } : {}),
      },
    ];
    const ask = (cache: boolean) =>
      thin.messages.create({
        model: 'claude-cache-priced',
        max_tokens: 20,
        system: system(cache),
        messages: [{ role: 'user', content: 'Which yard?' }],
      });
    const plain = await ask(false);
    assert.equal(plain.stop_reason, 'end_turn');
    const refused = await ask(true).then(
      () => assert.fail('should be refused'),
      (failure: unknown) => failure,
    );
    assert.ok(refused instanceof Anthropic.APIError && refused.status === 402, String(refused));
  });

  test('a mid-stream failure is an Anthropic error event; the SDK raises it', async () => {
    chatNode.setFaults({ cutAfterChunks: 3 });
    try {
      const stream = client.messages.stream({
        model: MODELS.chat,
        max_tokens: 500,
        messages: [{ role: 'user', content: 'Tell a long story.' }],
      });
      await assert.rejects(stream.finalMessage(), (error: unknown) => error instanceof Anthropic.APIError);
    } finally {
      chatNode.setFaults({});
    }
  });

  test("native: an Anthropic node's error event after the first byte reaches the client as the node sent it", async () => {
    const stream = client.messages.stream({
      model: 'claude-broken',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    let text = '';
    stream.on('text', (delta) => (text += delta));
    const error = await stream.finalMessage().then(
      () => assert.fail('should fail'),
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof Anthropic.APIError);
    assert.deepEqual((error.error as { error: unknown }).error, { type: 'overloaded_error', message: 'Overloaded' });
    assert.equal(text, 'Partly');
  });

  test('a client that disconnects mid-stream aborts the node', async () => {
    const slow = await startSimulator({ tokensPerSecond: 20 });
    try {
      await gateway.running.reload(
        gateway.parse(
          `admin_key: ${ADMIN_KEY}\nnodes:\n  - { id: slow, provider: openai, base_url: "${slow.baseUrl}" }\nmodels:\n  - { id: slow-model, routes: [{ node: slow }] }\nkeys:\n  - { key: ${KEY} }\n`,
        ),
      );
      const controller = new AbortController();
      const stream = client.messages.stream(
        { model: 'slow-model', max_tokens: 2000, messages: [{ role: 'user', content: 'A long story.' }] },
        { signal: controller.signal },
      );
      const settled = stream.finalMessage().then(
        () => undefined,
        (error: unknown) => error,
      );
      await new Promise<void>((resolve) => stream.on('text', () => resolve()));
      assert.equal(slow.stats().inFlight, 1);
      controller.abort();
      assert.ok((await settled) instanceof Anthropic.APIUserAbortError);
      await waitFor(() => slow.stats().inFlight === 0, 3000, { what: 'the node request aborted' });
    } finally {
      await slow.close();
    }
  });
});
