import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 18 item 8: the gateway's own simulated nodes honour what a tool-calling app sends
// (tools with tool_choice, n, stop, json_object, logprobs), and per-model scripts drive a
// two-turn tool loop through the gateway to a simulated node of each protocol.

const API_KEY = 'sk-e2e-simulated-tools-0123456789';
const TIMEOUT = { timeout: 20_000 };

const WEATHER: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city', 'unit'],
    },
  },
};
const AGENT_TOOLS: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'list_files', parameters: { type: 'object', properties: {} } } },
  {
    type: 'function',
    function: {
      name: 'read_file',
      parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    },
  },
];
const ASK: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Oslo?' }];

// The script every agent model gets: read a file when tools are offered, then quote the result.
const SCRIPT = `
      scripts:
        "*":
          - when: { tools_offered: true, last_role: user }
            call: { tool: "Read|read_file|shell", arguments: { file_path: "notes/{{last_user}}.md" } }
          - when: { last_role: tool }
            answer: "The file says: {{tool_result}}"`;

describe('simulated nodes honour tool-calling requests through the gateway', () => {
  let gateway: TestGateway;
  let client: OpenAI;

  before(async () => {
    gateway = await startTestGateway(`
nodes:
  - { id: sim, provider: simulated }
  - id: sim-openai-agent
    provider: simulated
    simulated:${SCRIPT}
  - id: sim-claude-agent
    provider: simulated
    simulated:
      protocol: anthropic${SCRIPT}
  - id: sim-gemini-agent
    provider: simulated
    simulated:
      protocol: gemini${SCRIPT}
models:
  - { id: sim-chat, routes: [{ node: sim }] }
  - { id: agent-openai, routes: [{ node: sim-openai-agent }] }
  - { id: agent-claude, routes: [{ node: sim-claude-agent, model: claude-sim }] }
  - { id: agent-gemini, routes: [{ node: sim-gemini-agent, model: gemini-sim }] }
keys:
  - { key: ${API_KEY} }
`);
    client = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 10_000 });
  });

  after(async () => {
    await gateway?.close();
  });

  test('tool_choice required: a deterministic tool call, then text after the tool result (JSON)', TIMEOUT, async () => {
    const first = await client.chat.completions.create({
      model: 'sim-chat',
      messages: ASK,
      tools: [WEATHER],
      tool_choice: 'required',
    });
    const choice = first.choices[0];
    assert.equal(choice?.finish_reason, 'tool_calls');
    const call = choice?.message.tool_calls?.[0];
    assert.ok(call !== undefined && call.type === 'function', 'the answer calls the tool');
    assert.equal(call.function.name, 'get_weather');
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    assert.equal(typeof args.city, 'string', 'the arguments fit the tool schema');
    assert.ok(args.unit === 'c' || args.unit === 'f');
    assert.ok(first.usage !== undefined && first.usage.completion_tokens > 0);

    const again = await client.chat.completions.create({
      model: 'sim-chat',
      messages: ASK,
      tools: [WEATHER],
      tool_choice: 'required',
    });
    assert.equal(
      again.choices[0]?.message.tool_calls?.[0]?.type === 'function' &&
        again.choices[0].message.tool_calls[0].function.arguments,
      call.function.arguments,
      'deterministic',
    );

    const second = await client.chat.completions.create({
      model: 'sim-chat',
      tools: [WEATHER],
      messages: [
        ...ASK,
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '{"temp_c":4}' },
      ],
    });
    assert.equal(second.choices[0]?.finish_reason, 'stop', 'after the result (tool_choice auto) the answer is text');
    assert.ok((second.choices[0]?.message.content ?? '').length > 0);
    assert.equal(second.choices[0]?.message.tool_calls, undefined);
  });

  test('tool_choice required, streamed: tool-call deltas build the same call', TIMEOUT, async () => {
    const json = await client.chat.completions.create({
      model: 'sim-chat',
      messages: ASK,
      tools: [WEATHER],
      tool_choice: 'required',
    });
    const stream = await client.chat.completions.create({
      model: 'sim-chat',
      messages: ASK,
      tools: [WEATHER],
      tool_choice: 'required',
      stream: true,
    });
    let name = '';
    let id = '';
    let args = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += delta.function?.name ?? '';
        id += delta.id ?? '';
        args += delta.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(finish, 'tool_calls');
    assert.equal(name, 'get_weather');
    assert.match(id, /^call_/);
    const jsonCall = json.choices[0]?.message.tool_calls?.[0];
    assert.ok(jsonCall?.type === 'function');
    assert.equal(args, jsonCall.function.arguments, "the streamed arguments equal the JSON answer's");
  });

  test('n: 2 gives two different choices, indexed 0 and 1', TIMEOUT, async () => {
    const completion = await client.chat.completions.create({ model: 'sim-chat', messages: ASK, n: 2 });
    assert.deepEqual(
      completion.choices.map((choice) => choice.index),
      [0, 1],
    );
    assert.notEqual(completion.choices[0]?.message.content, completion.choices[1]?.message.content);
    const stream = await client.chat.completions.create({ model: 'sim-chat', messages: ASK, n: 2, stream: true });
    const texts = ['', ''];
    for await (const chunk of stream)
      for (const choice of chunk.choices) texts[choice.index] += choice.delta.content ?? '';
    assert.deepEqual(
      texts,
      completion.choices.map((choice) => choice.message.content),
      'streamed choices match',
    );
  });

  test('stop cuts the answer before the sequence', TIMEOUT, async () => {
    const plain = await client.chat.completions.create({ model: 'sim-chat', messages: ASK });
    const text = plain.choices[0]?.message.content ?? '';
    assert.ok(text.includes('.'), 'the plain answer has sentences');
    const stopped = await client.chat.completions.create({ model: 'sim-chat', messages: ASK, stop: ['.'] });
    assert.equal(stopped.choices[0]?.finish_reason, 'stop');
    assert.equal(stopped.choices[0]?.message.content, text.slice(0, text.indexOf('.')));
  });

  test('response_format json_object gives a JSON object', TIMEOUT, async () => {
    const completion = await client.chat.completions.create({
      model: 'sim-chat',
      messages: ASK,
      response_format: { type: 'json_object' },
    });
    const parsed = JSON.parse(completion.choices[0]?.message.content ?? '') as unknown;
    assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed));
  });

  test('logprobs: one entry per token, top_logprobs as asked', TIMEOUT, async () => {
    const completion = await client.chat.completions.create({
      model: 'sim-chat',
      messages: ASK,
      logprobs: true,
      top_logprobs: 3,
    });
    const choice = completion.choices[0];
    const entries = choice?.logprobs?.content ?? [];
    assert.ok(entries.length > 0);
    assert.equal(entries.map((entry) => entry.token).join(''), choice?.message.content);
    for (const entry of entries) {
      assert.ok(entry.logprob <= 0);
      assert.equal(entry.top_logprobs.length, 3);
    }
  });

  for (const model of ['agent-openai', 'agent-claude', 'agent-gemini']) {
    for (const stream of [false, true]) {
      test(`scripted two-turn tool loop: ${model}${stream ? ', streamed' : ''}`, TIMEOUT, async () => {
        const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'todo' }];
        const first = stream
          ? await client.chat.completions.stream({ model, messages, tools: AGENT_TOOLS }).finalChatCompletion()
          : await client.chat.completions.create({ model, messages, tools: AGENT_TOOLS });
        const call = first.choices[0]?.message.tool_calls?.[0];
        assert.ok(call?.type === 'function', 'the script calls a tool');
        assert.equal(call.function.name, 'read_file', 'the first offered tool that matches the pattern');
        assert.deepEqual(JSON.parse(call.function.arguments), { file_path: 'notes/todo.md' });
        assert.equal(first.choices[0]?.finish_reason, 'tool_calls');

        messages.push(
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: 'buy milk' },
        );
        const second = stream
          ? await client.chat.completions.stream({ model, messages, tools: AGENT_TOOLS }).finalChatCompletion()
          : await client.chat.completions.create({ model, messages, tools: AGENT_TOOLS });
        assert.equal(second.choices[0]?.message.content, 'The file says: buy milk');
        assert.equal(second.choices[0]?.finish_reason, 'stop');
      });
    }
  }
});

test('a script with a bad tool pattern is refused at load', TIMEOUT, async () => {
  await assert.rejects(
    startTestGateway(`
nodes:
  - { id: sim, provider: simulated, simulated: { scripts: { "*": [{ call: { tool: "Read(" } }] } } }
models:
  - { id: m, routes: [{ node: sim }] }
`),
    /nodes\[0\]\.simulated\.scripts\.\*\[0\]\.call\.tool.*regular expression/,
  );
});
