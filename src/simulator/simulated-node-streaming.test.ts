import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countPromptTokens, countTokens } from './simulated-tokenizer.js';
import { SimulatorClient } from '../../test/support/simulator-client.js';
import { waitFor } from '../../test/support/wait-for.js';

const TIMEOUT = { timeout: 5000 };
const MESSAGES = [{ role: 'user', content: 'Tell me about rivers.' }];

interface Chunk {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Array<{ index: number; delta: Record<string, unknown>; finish_reason: string | null }>;
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
    completion_tokens_details: { reasoning_tokens: number };
  } | null;
}

function parseChunks(data: string[]): Chunk[] {
  assert.equal(data.at(-1), '[DONE]', '[DONE] comes last');
  assert.equal(data.indexOf('[DONE]'), data.length - 1, '[DONE] appears once');
  return data.slice(0, -1).map((payload) => JSON.parse(payload) as Chunk);
}

test(
  'stream order: role, reasoning deltas, content deltas, finish, usage, [DONE]; usage is exact',
  TIMEOUT,
  async (t) => {
    const client = await SimulatorClient.start(t);
    const streamed = await client.chatStream({
      model: 'm',
      messages: MESSAGES,
      reasoning_effort: 'low',
      stream_options: { include_usage: true },
    });
    assert.equal(streamed.status, 200);
    assert.equal(streamed.failure, undefined);
    const chunks = parseChunks(streamed.data);

    const [roleChunk, ...rest] = chunks;
    assert.deepEqual(roleChunk?.choices[0]?.delta, { role: 'assistant', content: '' });
    const usageChunk = rest.pop();
    const finishChunk = rest.pop();
    assert.deepEqual(usageChunk?.choices, []);
    assert.deepEqual(finishChunk?.choices[0]?.delta, {});
    assert.equal(finishChunk?.choices[0]?.finish_reason, 'stop');

    // Every token chunk carries exactly one token: reasoning first, then content, never mixed.
    const kinds = rest.map((chunk) => Object.keys(chunk.choices[0]?.delta ?? {}).join(','));
    const firstContent = kinds.indexOf('content');
    assert.ok(firstContent > 0);
    assert.ok(kinds.slice(0, firstContent).every((kind) => kind === 'reasoning_content'));
    assert.ok(kinds.slice(firstContent).every((kind) => kind === 'content'));
    const tokens = rest.map((chunk) => String(Object.values(chunk.choices[0]?.delta ?? {})[0]));
    tokens.forEach((token) => assert.equal(countTokens(token), 1));
    assert.ok(rest.every((chunk) => chunk.choices[0]?.finish_reason === null));

    const reasoning = tokens.slice(0, firstContent).join('');
    const content = tokens.slice(firstContent).join('');
    assert.equal(countTokens(reasoning), 16);
    assert.deepEqual(usageChunk?.usage, {
      prompt_tokens: countPromptTokens(MESSAGES),
      completion_tokens: countTokens(reasoning) + countTokens(content),
      total_tokens: countPromptTokens(MESSAGES) + countTokens(reasoning) + countTokens(content),
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: countTokens(reasoning) },
    });

    // Shared fields, and `usage: null` on every chunk but the last when include_usage is on.
    assert.ok(
      chunks.every((chunk) => chunk.id === roleChunk?.id && chunk.created === roleChunk.created && chunk.model === 'm'),
    );
    assert.ok(chunks.every((chunk) => chunk.object === 'chat.completion.chunk'));
    assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usage === null));

    // The streamed text is the JSON answer's text.
    const json = (await client.chat({ model: 'm', messages: MESSAGES, reasoning_effort: 'low' })).json as {
      choices: Array<{ message: Record<string, unknown> }>;
    };
    assert.equal(json.choices[0]?.message.content, content);
    assert.equal(json.choices[0]?.message.reasoning_content, reasoning);
  },
);

test('no usage chunk without stream_options.include_usage', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t);
  const chunks = parseChunks((await client.chatStream({ model: 'm', messages: MESSAGES })).data);
  assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
  assert.ok(chunks.every((chunk) => chunk.choices.length === 1 && !('usage' in chunk)));
});

test('streams are text/event-stream with the reasoning field of the node', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { reasoningField: 'reasoning' });
  const response = await fetch(client.url('/chat/completions'), {
    method: 'POST',
    body: JSON.stringify({ model: 'm', messages: MESSAGES, stream: true, reasoning_effort: 'low', max_tokens: 20 }),
  });
  assert.equal(response.headers.get('content-type'), 'text/event-stream');
  assert.match(response.headers.get('x-request-id') ?? '', /^sim-\d+$/);
  const text = await response.text();
  assert.match(text, /^data: /);
  assert.ok(text.endsWith('data: [DONE]\n\n'));
  const reasoningDeltas = text.match(/"delta":\{"reasoning":/g) ?? [];
  assert.equal(reasoningDeltas.length, 16);
  assert.equal((text.match(/"delta":\{"content":"[^"]+"\}/g) ?? []).length, 4);
  assert.match(text, /"finish_reason":"length"/);
});

test('tokensPerSecond paces token chunks', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { tokensPerSecond: 100 });
  const started = performance.now();
  const streamed = await client.chatStream({ model: 'm', messages: MESSAGES, max_tokens: 10 });
  const elapsed = performance.now() - started;
  assert.equal(streamed.data.length, 1 + 10 + 1 + 1);
  assert.ok(elapsed >= 80, `10 tokens at 100 tok/s took ${elapsed.toFixed(1)} ms`);
  assert.ok(elapsed < 1000, `pacing too slow: ${elapsed.toFixed(1)} ms`);
});

test('a client that leaves mid-stream stops generation and leaves inFlight', TIMEOUT, async (t) => {
  const client = await SimulatorClient.start(t, { tokensPerSecond: 20 });
  const aborter = new AbortController();
  const response = await fetch(client.url('/chat/completions'), {
    method: 'POST',
    body: JSON.stringify({ model: 'm', messages: MESSAGES, stream: true, reasoning_effort: 'high' }),
    signal: aborter.signal,
  });
  const reader = response.body?.getReader();
  await reader?.read();
  assert.equal(client.node.stats().inFlight, 1);
  aborter.abort();
  await waitFor(() => client.node.stats().inFlight === 0, 1000, { what: 'the node to see the abort' });
});
