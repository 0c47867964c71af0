import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError } from 'openai';
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import { assertResponsesEventOrder, parseResponsesEvents } from '../support/responses-events.js';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 20: the OpenAI Responses API through Switchyard with the official client, on a
// simulated node of each protocol (chat completions, Anthropic, Gemini): create, stream,
// a two-turn function-calling loop both replayed (`store: false`) and continued
// (`previous_response_id`), the stored response read back, listed and deleted, and errors
// raised as the client's own classes.

const API_KEY = 'sk-e2e-responses-api-0123456789ab';
const OTHER_ACCOUNT_KEY = 'sk-e2e-responses-api-other-012345';
const TIMEOUT = { timeout: 20_000 };

const SCRIPT = `
      scripts:
        "*":
          - when: { tools_offered: true, last_role: user }
            call: { tool: "get_weather", arguments: { city: "Oslo" } }
          - when: { last_role: tool }
            answer: "The weather: {{tool_result}}"`;

const WEATHER: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

/** One model per node protocol, each answering with reasoning. */
const MODELS = ['agent-openai', 'agent-claude', 'agent-gemini'] as const;

describe('the Responses API with the official openai client', () => {
  let gateway: TestGateway;
  let client: OpenAI;

  before(async () => {
    gateway = await startTestGateway(`
nodes:
  - id: sim-openai
    provider: simulated
    simulated:${SCRIPT}
  - id: sim-claude
    provider: simulated
    simulated:
      protocol: anthropic${SCRIPT}
  - id: sim-gemini
    provider: simulated
    simulated:
      protocol: gemini${SCRIPT}
models:
  - { id: agent-openai, reasoning: { default_effort: low }, routes: [{ node: sim-openai }] }
  - { id: agent-claude, default_max_tokens: 4000, reasoning: { default_effort: low }, routes: [{ node: sim-claude, model: claude-sim }] }
  - { id: agent-gemini, reasoning: { default_effort: low }, routes: [{ node: sim-gemini, model: gemini-sim }] }
accounts:
  - { id: acme }
  - { id: globex }
keys:
  - { key: ${API_KEY}, account: acme }
  - { key: ${OTHER_ACCOUNT_KEY}, account: globex }
`);
    client = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 10_000 });
  });

  after(async () => {
    await gateway?.close();
  });

  for (const model of MODELS) {
    test(
      `${model}: responses.create, then retrieve, inputItems.list and delete of what was stored`,
      TIMEOUT,
      async () => {
        const { data: created, response: raw } = await client.responses
          .create({ model, input: 'Say hello.', instructions: 'Be brief.', reasoning: { summary: 'auto' } })
          .withResponse();
        assert.match(created.id, /^resp_/);
        assert.ok(raw.headers.get('x-request-id'));
        assert.equal(created.status, 'completed');
        assert.equal(created.model, model);
        assert.ok(created.output_text.length > 0, 'the client reads the text');
        const types = created.output.map((item) => item.type);
        assert.deepEqual(types, ['reasoning', 'message']);
        const reasoning = created.output[0];
        assert.ok(
          reasoning?.type === 'reasoning' && (reasoning.summary[0]?.text.length ?? 0) > 0,
          'the reasoning as summary text',
        );
        const usage = created.usage;
        assert.ok(usage !== undefined && usage.input_tokens > 0 && usage.output_tokens > 0);
        assert.equal(usage.total_tokens, usage.input_tokens + usage.output_tokens);
        assert.ok(usage.output_tokens_details.reasoning_tokens > 0, 'reasoning tokens are reported');

        const retrieved = await client.responses.retrieve(created.id);
        assert.deepEqual(retrieved, created, 'the stored Response is the one the client got');
        const items = await client.responses.inputItems.list(created.id);
        assert.equal(items.data.length, 1);
        const [item] = items.data;
        assert.ok(item?.type === 'message' && item.role === 'user' && typeof item.id === 'string');
        await assert.rejects(
          new OpenAI({ apiKey: OTHER_ACCOUNT_KEY, baseURL: gateway.baseUrl, maxRetries: 0 }).responses.retrieve(
            created.id,
          ),
          NotFoundError,
          "another account's key does not see it",
        );
        await client.responses.delete(created.id);
        await assert.rejects(client.responses.retrieve(created.id), NotFoundError);
      },
    );

    test(`${model}: a stream of ordered events; finalResponse() is what the gateway stored`, TIMEOUT, async () => {
      const stream = client.responses.stream({ model, input: 'Tell me a story.', reasoning: { summary: 'detailed' } });
      const kinds = new Set<string>();
      let text = '';
      for await (const event of stream) {
        kinds.add(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
      }
      const final = await stream.finalResponse();
      assert.equal(final.output_text, text);
      for (const kind of [
        'response.created',
        'response.reasoning_summary_text.delta',
        'response.output_text.done',
        'response.completed',
      ]) {
        assert.ok(kinds.has(kind), kind);
      }
      const stored = await client.responses.retrieve(final.id);
      // The stream helper adds `parsed` to text parts on the client side.
      const withoutParsed = (value: unknown) =>
        JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === 'parsed' ? undefined : inner))) as unknown;
      assert.deepEqual(withoutParsed(stored.output), withoutParsed(final.output));
    });

    test(
      `${model}: a two-turn tool loop replayed with store: false, and continued by previous_response_id`,
      TIMEOUT,
      async () => {
        const input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Oslo?' }];
        const first = await client.responses.create({
          model,
          input,
          tools: [WEATHER],
          store: false,
          include: ['reasoning.encrypted_content'],
        });
        const call = first.output.find((item) => item.type === 'function_call');
        assert.ok(call?.type === 'function_call', 'the node called the tool');
        assert.equal(call.name, 'get_weather');
        const reasoning = first.output.find((item) => item.type === 'reasoning');
        assert.ok(reasoning?.type === 'reasoning');
        const envelope = reasoning.encrypted_content ?? '';
        assert.match(envelope, /^swy2\./);
        // Encrypted (issue 28, finding 12): neither the node nor the reasoning it carries can be read.
        const readable = Buffer.from(envelope.slice('swy2.'.length), 'base64url').toString('latin1');
        assert.ok(!readable.includes('sim-'), `no node id readable in ${envelope}`);

        // An envelope of the first, signed-only kind (before the upgrade) is dropped, never refused.
        const oldEnvelope = `swy1.${Buffer.from('sim-openai').toString('base64url')}.${Buffer.from('{"reasoning_content":"old"}').toString('base64url')}.${Buffer.alloc(16).toString('base64url')}`;
        const afterUpgrade = await client.responses.create({
          model,
          store: false,
          tools: [WEATHER],
          input: [
            ...input,
            { ...reasoning, encrypted_content: oldEnvelope },
            call,
            { type: 'function_call_output', call_id: call.call_id, output: 'fog' },
          ],
        });
        assert.equal(afterUpgrade.output_text, 'The weather: fog');
        assert.deepEqual(JSON.parse(call.arguments), { city: 'Oslo' });
        await assert.rejects(client.responses.retrieve(first.id), NotFoundError, 'store: false keeps nothing');
        const replayed = await client.responses.create({
          model,
          store: false,
          tools: [WEATHER],
          input: [
            ...input,
            ...(first.output as ResponseInputItem[]),
            { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 °C' },
          ],
        });
        assert.equal(replayed.output_text, 'The weather: sunny, 21 °C');

        const stored = await client.responses.create({ model, input, tools: [WEATHER] });
        const storedCall = stored.output.find((item) => item.type === 'function_call');
        assert.ok(storedCall?.type === 'function_call');
        const continued = await client.responses.create({
          model,
          previous_response_id: stored.id,
          tools: [WEATHER],
          input: [{ type: 'function_call_output', call_id: storedCall.call_id, output: 'rain' }],
        });
        assert.equal(continued.output_text, 'The weather: rain');
        assert.equal(continued.previous_response_id, stored.id);
      },
    );
  }

  test(
    'raw SSE: every event named, numbered from 0, items opened before their deltas, a terminal event with usage',
    TIMEOUT,
    async () => {
      const response = await fetch(`${gateway.baseUrl}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'agent-claude', input: 'Weather?', tools: [WEATHER], stream: true }),
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      const final = assertResponsesEventOrder(parseResponsesEvents(await response.text()));
      assert.deepEqual(
        (final.output as { type: string }[]).map((item) => item.type),
        ['reasoning', 'function_call'],
      );
    },
  );

  test('POST /v1/responses/input_tokens counts the prompt, the stored conversation included', TIMEOUT, async () => {
    const count = async (body: Record<string, unknown>) => {
      const response = await fetch(`${gateway.baseUrl}/responses/input_tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200);
      assert.ok(response.headers.get('x-request-id'));
      const answer = (await response.json()) as { object: string; input_tokens: number };
      assert.equal(answer.object, 'response.input_tokens');
      return answer.input_tokens;
    };
    const short = await count({ model: 'agent-openai', input: 'Hello.' });
    const longer = await count({ model: 'agent-openai', input: 'Hello. '.repeat(50) });
    assert.ok(short > 0 && longer > short + 40, `${short} < ${longer}`);
    const first = await client.responses.create({ model: 'agent-openai', input: 'Hello. '.repeat(50) });
    const continued = await count({ model: 'agent-openai', input: 'Hello.', previous_response_id: first.id });
    assert.ok(continued > longer, 'the stored conversation counts too');
  });

  test("errors come in OpenAI's shape, as the client's own classes", TIMEOUT, async () => {
    await assert.rejects(
      client.responses.create({ model: 'agent-openai', input: 'x', temperature: 5 }),
      (error: unknown) => {
        assert.ok(error instanceof BadRequestError);
        assert.equal(error.param, 'temperature');
        return true;
      },
    );
    await assert.rejects(client.responses.create({ model: 'no-such-model', input: 'x' }), NotFoundError);
    await assert.rejects(
      new OpenAI({ apiKey: 'sk-wrong', baseURL: gateway.baseUrl, maxRetries: 0 }).responses.create({
        model: 'agent-openai',
        input: 'x',
      }),
      AuthenticationError,
    );
    await assert.rejects(
      client.responses.create({
        model: 'agent-openai',
        input: 'x',
        previous_response_id: 'resp_000000000000000000000000',
      }),
      (error: unknown) =>
        error instanceof BadRequestError &&
        error.code === 'previous_response_not_found' &&
        error.param === 'previous_response_id',
    );
    await assert.rejects(
      client.responses.create({
        model: 'agent-openai',
        input: 'x',
        tools: [{ type: 'web_search_preview' }],
        tool_choice: { type: 'web_search_preview' },
      }),
      (error: unknown) => error instanceof BadRequestError && error.param === 'tool_choice',
    );
  });
});

describe('the Responses API passed through to a node that serves it (apis: [chat, responses])', () => {
  let gateway: TestGateway;
  let node: SimulatedNode;
  let client: OpenAI;

  before(async () => {
    node = await startSimulator({
      scripts: {
        '*': [
          {
            when: { tools_offered: true, last_role: 'user' },
            call: { tool: 'get_weather', arguments: { city: 'Oslo' } },
          },
          { when: { last_role: 'tool' }, answer: 'The weather: {{tool_result}}' },
        ],
      },
    });
    gateway = await startTestGateway(`
nodes:
  - { id: native, provider: openai, base_url: "${node.baseUrl}", apis: [chat, responses] }
models:
  - { id: native-model, context_length: 32000, max_output_tokens: 2000, priced_features: { server_tools: { web_search: { usd_per_call: 0 } } }, routes: [{ node: native, model: upstream-name }] }
keys:
  - { key: ${API_KEY} }
`);
    client = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 10_000 });
  });

  after(async () => {
    await gateway?.close();
    await node?.close();
  });

  test(
    "the body goes through unchanged except model and the output cap; the reply keeps the node's id and is stored",
    TIMEOUT,
    async () => {
      const created = await client.responses.create({
        model: 'native-model',
        input: 'Say hello.',
        max_output_tokens: 500,
        // A field only OpenAI knows: passed through to the node as is (PRODUCT.md decision 8).
        ...({ client_metadata: { session: 's1' } } as object),
      });
      const seen = node.stats().lastRequest;
      assert.equal(seen?.path, '/v1/responses');
      const body = seen?.body as Record<string, unknown>;
      assert.equal(body.model, 'upstream-name');
      assert.equal(body.max_output_tokens, 500);
      assert.deepEqual(body.client_metadata, { session: 's1' });
      assert.equal(body.input, 'Say hello.');
      assert.equal(created.model, 'native-model', "the client's model id is put back");
      assert.match(created.id, /^resp_0+\d+$/, "the node's own response id");
      assert.ok(created.output_text.length > 0);
      assert.ok((created.usage?.output_tokens ?? 0) > 0);
      const stored = await client.responses.retrieve(created.id);
      assert.equal(stored.id, created.id);
    },
  );

  test("a stream relays the node's events; finalResponse() reads them", TIMEOUT, async () => {
    const response = await fetch(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'native-model', input: 'Weather?', tools: [WEATHER], stream: true }),
    });
    const final = assertResponsesEventOrder(parseResponsesEvents(await response.text()));
    assert.equal(final.model, 'native-model');
    assert.equal((node.stats().lastRequest?.body as Record<string, unknown>).stream, true);

    const stream = client.responses.stream({ model: 'native-model', input: 'Tell me a story.' });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    assert.equal((await stream.finalResponse()).output_text, text);
  });

  test(
    'a hosted tool the model allows, even forced, reaches the node that can run it, its calls capped',
    TIMEOUT,
    async () => {
      const created = await client.responses.create({
        model: 'native-model',
        input: 'Search the news.',
        tools: [{ type: 'web_search_preview' }],
        tool_choice: { type: 'web_search_preview' },
      });
      assert.equal(created.status, 'completed');
      const body = node.stats().lastRequest?.body as Record<string, unknown>;
      assert.deepEqual(body.tools, [{ type: 'web_search_preview' }]);
      assert.deepEqual(body.tool_choice, { type: 'web_search_preview' });
      assert.equal(body.max_tool_calls, 10, "the default max_calls: the model's priced_features give none");
    },
  );

  test(
    "an item_reference to nothing stored for the key's account is 404 and never reaches the node",
    TIMEOUT,
    async () => {
      // A node keeps every account's items under the gateway's one key: it cannot tell whose an id is.
      node.resetStats();
      await assert.rejects(
        client.responses.create({
          model: 'native-model',
          input: [
            { type: 'item_reference', id: 'msg_kept_by_openai' },
            { role: 'user', content: 'Go on.' },
          ],
        }),
        (error: unknown) =>
          error instanceof NotFoundError && error.param === 'input[0]' && /msg_kept_by_openai/.test(error.message),
      );
      assert.equal(node.stats().requests, 0);
    },
  );

  test('a two-turn tool loop replayed with store: false', TIMEOUT, async () => {
    const input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Oslo?' }];
    const first = await client.responses.create({ model: 'native-model', input, tools: [WEATHER], store: false });
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call?.type === 'function_call');
    const second = await client.responses.create({
      model: 'native-model',
      store: false,
      tools: [WEATHER],
      input: [...input, call, { type: 'function_call_output', call_id: call.call_id, output: 'fog' }],
    });
    assert.equal(second.output_text, 'The weather: fog');
  });
});

describe('reasoning replayed with store: false goes back only to the node that made it', () => {
  let gateway: TestGateway;
  let claude: SimulatedNode;
  let otherClaude: SimulatedNode;
  let client: OpenAI;

  before(async () => {
    const scripts = {
      '*': [
        {
          when: { tools_offered: true, last_role: 'user' as const },
          call: { tool: 'get_weather', arguments: { city: 'Oslo' } },
        },
        { when: { last_role: 'tool' as const }, answer: 'The weather: {{tool_result}}' },
      ],
    };
    claude = await startSimulator({ protocol: 'anthropic', scripts });
    otherClaude = await startSimulator({ protocol: 'anthropic', scripts });
    gateway = await startTestGateway(`
nodes:
  - { id: claude, provider: anthropic, base_url: "${claude.baseUrl}", api_key: k }
  - { id: other-claude, provider: anthropic, base_url: "${otherClaude.baseUrl}", api_key: k }
models:
  - { id: thinker, default_max_tokens: 4000, reasoning: { default_effort: low }, routes: [{ node: claude, model: claude-sim }] }
  - { id: other-thinker, default_max_tokens: 4000, reasoning: { default_effort: low }, routes: [{ node: other-claude, model: claude-sim }] }
keys:
  - { key: ${API_KEY} }
`);
    client = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 10_000 });
  });

  after(async () => {
    await gateway?.close();
    await claude?.close();
    await otherClaude?.close();
  });

  /** The assistant turn the node was sent in the request after the first one. */
  const replayedTurn = (node: SimulatedNode) => {
    const body = node.stats().lastRequest?.body as {
      messages: { role: string; content: { type: string; signature?: string }[] }[];
    };
    return body.messages.find((message) => message.role === 'assistant');
  };

  test(
    "Anthropic thinking comes back signed to its node, in the envelope; another node's request goes without it",
    TIMEOUT,
    async () => {
      const input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Oslo?' }];
      const first = await client.responses.create({
        model: 'thinker',
        input,
        tools: [WEATHER],
        store: false,
        reasoning: { summary: 'auto' },
        include: ['reasoning.encrypted_content'],
      });
      const reasoning = first.output.find((item) => item.type === 'reasoning');
      assert.ok(reasoning?.type === 'reasoning');
      const envelope = reasoning.encrypted_content ?? '';
      assert.match(envelope, /^swy2\./, "Switchyard's envelope, not the node's signature");
      // Encrypted (issue 28, finding 12): neither the node nor what it needs back can be read.
      const readable = envelope
        .slice('swy2.'.length)
        .split('.')
        .map((part) => Buffer.from(part, 'base64url').toString('latin1'))
        .join(' ');
      assert.ok(!readable.includes('claude'), `no node id in ${envelope}`);
      assert.ok(!readable.includes('signature') && !readable.includes('thinking'), 'no readable payload');
      const call = first.output.find((item) => item.type === 'function_call');
      assert.ok(call?.type === 'function_call');
      const replay: ResponseInputItem[] = [
        ...input,
        reasoning,
        call,
        { type: 'function_call_output', call_id: call.call_id, output: 'sun' },
      ];

      const second = await client.responses.create({ model: 'thinker', input: replay, tools: [WEATHER], store: false });
      assert.equal(second.output_text, 'The weather: sun');
      const turn = replayedTurn(claude);
      assert.equal(turn?.content[0]?.type, 'thinking', 'the thinking block leads the assistant turn again');
      assert.ok(
        (turn?.content[0]?.signature ?? '').length > 0 && !/^swy\d\./.test(turn?.content[0]?.signature ?? ''),
        "the node's own signature",
      );

      await client.responses.create({ model: 'other-thinker', input: replay, tools: [WEATHER], store: false });
      const elsewhere = replayedTurn(otherClaude);
      assert.ok(elsewhere !== undefined);
      assert.ok(
        !elsewhere.content.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking'),
        'no foreign thinking',
      );
    },
  );
  test(
    "an Anthropic node's own 400 reaches the client in OpenAI's shape, with the node's status",
    TIMEOUT,
    async () => {
      claude.setFaults({ failFirst: { count: 1, status: 400 } });
      const response = await fetch(`${gateway.baseUrl}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'thinker', input: 'Hi' }),
      });
      claude.setFaults({});
      assert.equal(response.status, 400);
      const body = (await response.json()) as { type?: string; error: Record<string, unknown> };
      assert.equal(body.type, undefined, "not Anthropic's envelope");
      assert.equal(typeof body.error.message, 'string');
      assert.ok('param' in body.error && 'code' in body.error && 'type' in body.error);
    },
  );
});
