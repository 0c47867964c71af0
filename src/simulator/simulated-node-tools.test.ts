import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SimulatedNode } from './simulated-node.js';
import { ScriptError } from '../config/simulator-scripts.js';
import { SimulatorClient } from '../../test/support/simulator-client.js';
import { sseData } from '../../test/support/sse.js';

const TIMEOUT = { timeout: 5000 };
const ASK = [{ role: 'user', content: 'Where is the parcel?' }];
const TRACK = {
  name: 'track_parcel',
  parameters: {
    type: 'object',
    properties: { id: { type: 'string' }, express: { type: 'boolean' }, tries: { type: 'integer' } },
    required: ['id', 'express'],
  },
};
const OPENAI_TOOLS = [
  { type: 'function', function: { name: 'noop', parameters: { type: 'object', properties: {} } } },
  { type: 'function', function: TRACK },
];

/** The parts of the wire bodies these tests read. */
interface ToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}
interface Completion {
  choices: Array<{
    index: number;
    message: { content: string | null; tool_calls?: ToolCall[] };
    finish_reason: string;
    logprobs: { content: Array<{ token: string }> } | null;
  }>;
  usage: { completion_tokens: number };
}
interface Chunk {
  choices: Array<{ index: number; delta: { content?: string }; logprobs: { content: unknown[] } | null }>;
  usage?: { completion_tokens: number } | null;
}
interface AnthropicMessage {
  stop_reason: string;
  stop_sequence: string | null;
  content: Array<{ type: string; id?: string; name?: string; input?: unknown; text?: string }>;
}
interface AnthropicEvent {
  type: string;
  content_block?: { type: string; id?: string };
  delta?: { type?: string; partial_json?: string; stop_reason?: string };
}
interface GeminiPart {
  text?: string;
  functionCall?: { name: string; args: Record<string, unknown> };
}
interface GeminiResponse {
  candidates: Array<{ index: number; content: { parts: GeminiPart[] } }>;
}

function completion(json: Record<string, unknown>): Completion {
  return json as unknown as Completion;
}

function firstCall(json: Record<string, unknown>): ToolCall {
  const call = completion(json).choices[0]?.message.tool_calls?.[0];
  assert.ok(call !== undefined, 'the answer has a tool call');
  return call;
}

test(
  'openai: tool_choice naming a function calls it with arguments from its schema; auto after a tool result answers',
  TIMEOUT,
  async (t) => {
    const client = await SimulatorClient.start(t);
    const { json } = await client.chat({
      model: 'm',
      messages: ASK,
      tools: OPENAI_TOOLS,
      tool_choice: { type: 'function', function: { name: 'track_parcel' } },
    });
    const choice = completion(json).choices[0];
    assert.equal(choice?.finish_reason, 'tool_calls');
    assert.equal(choice?.message.content, null);
    const call = firstCall(json);
    assert.equal(call.function.name, 'track_parcel');
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    assert.deepEqual(Object.keys(args), ['id', 'express'], 'the required properties');
    assert.equal(args.express, true);
    assert.ok(completion(json).usage.completion_tokens > 0);

    const none = await client.chat({ model: 'm', messages: ASK, tools: OPENAI_TOOLS, tool_choice: 'none' });
    assert.equal(completion(none.json).choices[0]?.finish_reason, 'stop');
    const after = await client.chat({
      model: 'm',
      tools: OPENAI_TOOLS,
      messages: [
        ...ASK,
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'at the depot' },
      ],
    });
    assert.equal(completion(after.json).choices[0]?.finish_reason, 'stop');
    const required = await client.chat({
      model: 'm',
      tools: OPENAI_TOOLS,
      tool_choice: 'required',
      messages: [
        ...ASK,
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'at the depot' },
      ],
    });
    assert.equal(
      completion(required.json).choices[0]?.finish_reason,
      'tool_calls',
      'required still calls after a result',
    );
  },
);

test('openai: n, stop, json_schema and logprobs in one stream', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city', 'days'],
  };
  const body = {
    model: 'm',
    messages: ASK,
    n: 3,
    response_format: { type: 'json_schema', json_schema: { name: 'trip', schema } },
    logprobs: true,
    top_logprobs: 2,
    stream_options: { include_usage: true },
  };
  const { json } = await client.chat(body);
  const stream = await client.chatStream(body);
  const chunks = stream.data.filter((data) => data !== '[DONE]').map((data) => JSON.parse(data) as Chunk);
  const texts = ['', '', ''];
  let logprobCount = 0;
  for (const chunk of chunks) {
    for (const choice of chunk.choices) {
      texts[choice.index] += choice.delta.content ?? '';
      logprobCount += choice.logprobs?.content.length ?? 0;
    }
  }
  const choices = completion(json).choices;
  assert.deepEqual(
    texts,
    choices.map((choice) => choice.message.content),
  );
  for (const choice of choices) {
    const value = JSON.parse(choice.message.content ?? '') as Record<string, unknown>;
    assert.equal(typeof value.city, 'string');
    assert.equal(typeof value.days, 'number');
    assert.equal(choice.logprobs?.content.map((entry) => entry.token).join(''), choice.message.content);
  }
  assert.equal(
    logprobCount,
    choices.reduce((sum, choice) => sum + (choice.logprobs?.content.length ?? 0), 0),
  );
  assert.equal(chunks.at(-1)?.usage?.completion_tokens, logprobCount, 'usage counts every choice');

  const bad = await client.chat({ model: 'm', messages: ASK, stop: ['a', 'b', 'c', 'd', 'e'] });
  assert.equal(bad.status, 400);
});

test('anthropic: tool_use blocks (JSON and stream), stop_sequence, and forced tool', TIMEOUT, async (t) => {
  const node = new SimulatedNode({ protocol: 'anthropic' });
  const baseUrl = await node.listen(0);
  t.after(() => node.close());
  const post = (body: Record<string, unknown>) =>
    fetch(`${baseUrl}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const request = {
    model: 'claude-sim',
    max_tokens: 500,
    messages: ASK,
    tools: [{ name: TRACK.name, input_schema: TRACK.parameters }],
    tool_choice: { type: 'any' },
  };
  const message = (await (await post(request)).json()) as AnthropicMessage;
  assert.equal(message.stop_reason, 'tool_use');
  const block = message.content.find((entry) => entry.type === 'tool_use');
  assert.equal(block?.name, 'track_parcel');
  assert.match(block?.id ?? '', /^toolu_/);

  const events = sseData(await (await post({ ...request, stream: true })).text()).map(
    (data) => JSON.parse(data) as AnthropicEvent,
  );
  const start = events.find(
    (event) => event.type === 'content_block_start' && event.content_block?.type === 'tool_use',
  );
  assert.equal(start?.content_block?.id, block?.id);
  const partial = events
    .filter((event) => event.delta?.type === 'input_json_delta')
    .map((event) => event.delta?.partial_json)
    .join('');
  assert.deepEqual(JSON.parse(partial), block?.input);
  assert.equal(events.find((event) => event.type === 'message_delta')?.delta?.stop_reason, 'tool_use');

  const stopped = (await (
    await post({ model: 'claude-sim', max_tokens: 500, messages: ASK, stop_sequences: ['.'] })
  ).json()) as AnthropicMessage;
  assert.equal(stopped.stop_reason, 'stop_sequence');
  assert.equal(stopped.stop_sequence, '.');
  assert.ok(!(stopped.content[0]?.text ?? '.').includes('.'));
});

test('gemini: functionCall parts, candidateCount candidates, JSON mime type', TIMEOUT, async (t) => {
  const node = new SimulatedNode({ protocol: 'gemini' });
  const baseUrl = await node.listen(0);
  t.after(() => node.close());
  const post = (method: string, body: Record<string, unknown>) =>
    fetch(`${baseUrl}/models/gem:${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const contents = [{ role: 'user', parts: [{ text: 'Where is the parcel?' }] }];
  const tools = [{ functionDeclarations: [{ name: TRACK.name, parametersJsonSchema: TRACK.parameters }] }];
  const toolConfig = { functionCallingConfig: { mode: 'ANY' } };
  const called = (await (await post('generateContent', { contents, tools, toolConfig })).json()) as GeminiResponse;
  const call = called.candidates[0]?.content.parts.find((part) => part.functionCall !== undefined)?.functionCall;
  assert.equal(call?.name, 'track_parcel');
  assert.equal(call?.args.express, true);

  const streamed = sseData(
    await (await post('streamGenerateContent?alt=sse', { contents, tools, toolConfig })).text(),
  ).map((data) => JSON.parse(data) as GeminiResponse);
  assert.deepEqual(
    streamed.flatMap((chunk) => chunk.candidates[0]?.content.parts ?? []).find((part) => part.functionCall)
      ?.functionCall,
    call,
  );

  const two = (await (
    await post('generateContent', {
      contents,
      generationConfig: { candidateCount: 2, responseMimeType: 'application/json' },
    })
  ).json()) as GeminiResponse;
  assert.deepEqual(
    two.candidates.map((candidate) => candidate.index),
    [0, 1],
  );
  for (const candidate of two.candidates)
    assert.equal(typeof JSON.parse(candidate.content.parts[0]?.text ?? ''), 'object');
});

test('scripts: per model with a "*" fallback; a call whose tool is not offered falls through', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, {
    scripts: {
      scripted: [
        { when: { tools_offered: true }, call: { tool: 'shell|bash', arguments: { command: 'cat {{last_user}}' } } },
        { when: { last_message_matches: '^hello' }, answer: 'Hi there.' },
      ],
      '*': [{ answer: 'Fallback answer.' }],
    },
  });
  const shell = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: {} } } }];
  const called = await client.chat({ model: 'scripted', messages: [{ role: 'user', content: 'a.txt' }], tools: shell });
  assert.deepEqual(JSON.parse(firstCall(called.json).function.arguments), { command: 'cat a.txt' });
  const greeted = await client.chat({
    model: 'scripted',
    messages: [{ role: 'user', content: 'hello you' }],
    tools: OPENAI_TOOLS,
  });
  assert.equal(completion(greeted.json).choices[0]?.message.content, 'Hi there.', 'no offered tool matches shell|bash');
  const plain = await client.chat({ model: 'scripted', messages: [{ role: 'user', content: 'other' }] });
  assert.equal(completion(plain.json).choices[0]?.finish_reason, 'stop', 'no rule holds: the default answer');
  assert.notEqual(completion(plain.json).choices[0]?.message.content, 'Hi there.');
  const fallback = await client.chat({ model: 'anything', messages: ASK });
  assert.equal(completion(fallback.json).choices[0]?.message.content, 'Fallback answer.');
});

test('scripts are checked when the node is made', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ m: [{ call: { tool: 'Read(' } }] }, /m\[0\]\.call\.tool: is not a valid regular expression/],
    [{ m: [{ answer: 'x', call: { tool: 'a' } }] }, /m\[0\]: needs exactly one of/],
    [{ m: [{ answer: 'see {{nope}}' }] }, /m\[0\]\.answer: unknown placeholder \{\{nope\}\}/],
    [{ m: [{ when: { last_role: 'robot' }, answer: 'x' }] }, /m\[0\]\.when\.last_role/],
    [{ m: [] }, /m: must be a non-empty list/],
  ];
  for (const [scripts, message] of cases) {
    assert.throws(
      () => new SimulatedNode({ scripts: scripts as never }),
      (error: unknown) => error instanceof ScriptError && message.test(error.message),
    );
  }
});
