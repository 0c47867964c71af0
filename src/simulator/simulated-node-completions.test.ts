import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import { countPromptTokens, countTokens } from './simulated-tokenizer.js';
import { SimulatorClient } from '../../test/support/simulator-client.js';

const TIMEOUT = { timeout: 5000 };
const MESSAGES = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: [{ type: 'text', text: 'Describe a harbor at dawn.' }] },
];

interface Completion {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Array<{ index: number; message: Record<string, unknown>; finish_reason: string }>;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
    completion_tokens_details: { reasoning_tokens: number };
  };
}

function asCompletion(json: Record<string, unknown>): Completion {
  return json as unknown as Completion;
}

test('the same request gives byte-identical content', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  const body = { model: 'sim-a', messages: MESSAGES, reasoning_effort: 'medium' };
  const first = asCompletion((await client.chat(body)).json);
  const second = asCompletion((await client.chat(body)).json);
  assert.equal(second.choices[0]?.message.content, first.choices[0]?.message.content);
  assert.equal(second.choices[0]?.message.reasoning_content, first.choices[0]?.message.reasoning_content);
  assert.notEqual(second.id, first.id, 'ids still differ per request');
  const other = asCompletion((await client.chat({ ...body, model: 'sim-b' })).json);
  assert.notEqual(other.choices[0]?.message.content, first.choices[0]?.message.content);
});

test('a JSON completion has the OpenAI shape and exact usage', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  const response = await client.post('/chat/completions', {
    model: 'sim-a',
    messages: MESSAGES,
    reasoning_effort: 'low',
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json');
  assert.equal(Number(response.headers.get('content-length')), Buffer.byteLength(response.text));
  assert.match(response.headers.get('x-request-id') ?? '', /^sim-\d+$/);

  const completion = asCompletion(JSON.parse(response.text) as Record<string, unknown>);
  assert.match(completion.id, /^chatcmpl-sim-/);
  assert.equal(completion.object, 'chat.completion');
  assert.equal(completion.model, 'sim-a');
  assert.ok(Math.abs(completion.created - Date.now() / 1000) < 5);
  const choice = completion.choices[0];
  assert.equal(choice?.message.role, 'assistant');
  assert.equal(choice?.finish_reason, 'stop');
  const content = String(choice?.message.content);
  const reasoning = String(choice?.message.reasoning_content);
  assert.match(content, /^[A-Z].*\.$/);

  const reasoningTokens = countTokens(reasoning);
  assert.equal(reasoningTokens, 16);
  assert.deepEqual(completion.usage, {
    prompt_tokens: countPromptTokens(MESSAGES),
    completion_tokens: reasoningTokens + countTokens(content),
    total_tokens: countPromptTokens(MESSAGES) + reasoningTokens + countTokens(content),
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  });
});

test('reasoning length follows reasoning_effort or reasoning.effort; none without it', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  const cases: Array<[Record<string, unknown>, number]> = [
    [{ reasoning_effort: 'low' }, 16],
    [{ reasoning_effort: 'medium' }, 48],
    [{ reasoning_effort: 'high' }, 128],
    [{ reasoning: { effort: 'medium' } }, 48],
  ];
  for (const [extra, expected] of cases) {
    const completion = asCompletion((await client.chat({ model: 'm', messages: MESSAGES, ...extra })).json);
    assert.equal(
      countTokens(String(completion.choices[0]?.message.reasoning_content)),
      expected,
      JSON.stringify(extra),
    );
    assert.equal(completion.usage.completion_tokens_details.reasoning_tokens, expected);
  }
  const plain = asCompletion((await client.chat({ model: 'm', messages: MESSAGES })).json);
  assert.equal('reasoning_content' in (plain.choices[0]?.message ?? {}), false);
  assert.equal(plain.usage.completion_tokens_details.reasoning_tokens, 0);
});

test('max_tokens and max_completion_tokens cap the answer with finish_reason length', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  const capped = asCompletion((await client.chat({ model: 'm', messages: MESSAGES, max_tokens: 5 })).json);
  assert.equal(capped.choices[0]?.finish_reason, 'length');
  assert.equal(countTokens(String(capped.choices[0]?.message.content)), 5);
  assert.equal(capped.usage.completion_tokens, 5);

  // The cap is hit while reasoning: no visible content at all.
  const inReasoning = asCompletion(
    (
      await client.chat({
        model: 'm',
        messages: MESSAGES,
        max_completion_tokens: 10,
        max_tokens: 1000,
        reasoning_effort: 'low',
      })
    ).json,
  );
  assert.equal(inReasoning.choices[0]?.finish_reason, 'length');
  assert.equal(inReasoning.choices[0]?.message.content, '');
  assert.equal(countTokens(String(inReasoning.choices[0]?.message.reasoning_content)), 10);
  assert.equal(inReasoning.usage.completion_tokens, 10);
  assert.equal(inReasoning.usage.completion_tokens_details.reasoning_tokens, 10);

  const roomy = asCompletion((await client.chat({ model: 'm', messages: MESSAGES, max_tokens: 1000 })).json);
  assert.equal(roomy.choices[0]?.finish_reason, 'stop');
});

test("reasoningField 'reasoning' puts the text under message.reasoning", TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { reasoningField: 'reasoning' });
  const completion = asCompletion(
    (await client.chat({ model: 'm', messages: MESSAGES, reasoning_effort: 'low' })).json,
  );
  const message = completion.choices[0]?.message ?? {};
  assert.equal(countTokens(String(message.reasoning)), 16);
  assert.equal('reasoning_content' in message, false);
});

test('bad requests get 400 with an OpenAI error body', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  const cases: Array<[unknown, string]> = [
    ['{"model": "m", "messages": [', 'invalid_json'],
    [{ model: 'm' }, 'missing_required_parameter'],
    [{ model: 'm', messages: 'hello' }, 'invalid_value'],
    [{ messages: MESSAGES }, 'missing_required_parameter'],
    [{ model: 'm', messages: MESSAGES, max_tokens: 0 }, 'invalid_value'],
    [{ model: 'm', messages: MESSAGES, reasoning_effort: 'enormous' }, 'invalid_value'],
  ];
  for (const [body, code] of cases) {
    const response = await client.post('/chat/completions', body);
    assert.equal(response.status, 400, response.text);
    const error = (JSON.parse(response.text) as { error: Record<string, unknown> }).error;
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, code);
    assert.equal(typeof error.message, 'string');
    assert.ok('param' in error);
  }
});

test('prompts over contextLength get 400 context_length_exceeded', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { contextLength: 20 });
  const fits = await client.post('/chat/completions', {
    model: 'm',
    messages: [{ role: 'user', content: 'short question' }],
  });
  assert.equal(fits.status, 200);
  const response = await client.post('/chat/completions', {
    model: 'm',
    messages: [{ role: 'user', content: 'word '.repeat(30) }],
  });
  assert.equal(response.status, 400);
  const error = (JSON.parse(response.text) as { error: Record<string, unknown> }).error;
  assert.equal(error.code, 'context_length_exceeded');
  assert.equal(error.param, 'messages');
  assert.equal(error.type, 'invalid_request_error');
});

test('GET /v1/models lists "simulated" and the models seen', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  await client.chat({ model: 'qwen-sim', messages: MESSAGES });
  const response = await client.get('/models');
  assert.equal(response.status, 200);
  const list = JSON.parse(response.text) as { object: string; data: Array<{ id: string; object: string }> };
  assert.equal(list.object, 'list');
  assert.deepEqual(
    list.data.map((model) => model.id),
    ['simulated', 'qwen-sim'],
  );
  assert.ok(list.data.every((model) => model.object === 'model'));
});

test('any path ending in /chat/completions is served; others are 404', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  const origin = new URL(client.baseUrl).origin;
  const response = await fetch(`${origin}/openai/deployments/x/chat/completions?api-version=1`, {
    method: 'POST',
    body: JSON.stringify({ model: 'm', messages: MESSAGES }),
  });
  assert.equal(response.status, 200);
  await response.arrayBuffer();
  assert.equal((await client.get('/nothing-here')).status, 404);
  assert.equal((await client.get('/chat/completions')).status, 405);
});

test('the official openai SDK reads JSON and streamed answers', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  const openai = new OpenAI({ baseURL: client.baseUrl, apiKey: 'sk-simulated', maxRetries: 0 });
  const completion = await openai.chat.completions.create({
    model: 'sdk-model',
    messages: [{ role: 'user', content: 'Hi' }],
  });
  assert.equal(completion.model, 'sdk-model');
  assert.equal(completion._request_id, 'sim-1');

  const stream = await openai.chat.completions.create({
    model: 'sdk-model',
    messages: [{ role: 'user', content: 'Hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = '';
  let completionTokens = 0;
  for await (const chunk of stream) {
    content += chunk.choices[0]?.delta.content ?? '';
    completionTokens = chunk.usage?.completion_tokens ?? completionTokens;
  }
  assert.equal(content, completion.choices[0]?.message.content);
  assert.equal(completionTokens, completion.usage?.completion_tokens);
  assert.equal(client.node.stats().lastRequest?.headers.authorization, 'Bearer sk-simulated');
});
