import assert from 'node:assert/strict';
import test from 'node:test';
import { sseData } from '../../test/support/sse.js';
import { waitFor } from '../../test/support/wait-for.js';
import { SimulatedNode, type SimulatedNodeOptions } from './simulated-node.js';
import { countPromptTokens } from './simulated-tokenizer.js';

const TIMEOUT = { timeout: 20_000 };
const CACHE: SimulatedNodeOptions = { prefixCache: { capacityTokens: 100_000 } };

function words(tag: string, count: number): string {
  return Array.from({ length: count }, (_, index) => `${tag}${index}`).join(' ');
}

/** Chat messages of a session after `turns` user turns. */
function chatTurns(turns: number): Array<{ role: string; content: string }> {
  const messages = [{ role: 'system', content: words('system', 300) }];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: words(`user${turn}-`, 100) });
    if (turn < turns) messages.push({ role: 'assistant', content: words(`reply${turn}-`, 30) });
  }
  return messages;
}

async function start(
  t: test.TestContext,
  options: SimulatedNodeOptions,
): Promise<{ node: SimulatedNode; url: string }> {
  const node = new SimulatedNode(options);
  const url = await node.listen(0);
  t.after(() => node.close());
  return { node, url };
}

async function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as Record<string, unknown>;
}

async function postStream(url: string, body: unknown): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200);
  return sseData(await response.text())
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

/** Every full 16-token block of the previous prompt: what the next turn finds cached. */
const cachedAfter = (turns: number): number => Math.floor(countPromptTokens(chatTurns(turns)) / 16) * 16;

test('openai chat: a growing conversation reports its cached prefix in usage, JSON and stream', TIMEOUT, async (t) => {
  const { node, url } = await start(t, CACHE);
  const first = await postJson(`${url}/chat/completions`, { model: 'm', messages: chatTurns(1) });
  assert.deepEqual((first.usage as { prompt_tokens_details: unknown }).prompt_tokens_details, { cached_tokens: 0 });
  const second = await postJson(`${url}/chat/completions`, { model: 'm', messages: chatTurns(2) });
  const usage = second.usage as { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
  assert.equal(usage.prompt_tokens, countPromptTokens(chatTurns(2)));
  assert.equal(usage.prompt_tokens_details.cached_tokens, cachedAfter(1));

  const chunks = await postStream(`${url}/chat/completions`, {
    model: 'm',
    messages: chatTurns(3),
    stream: true,
    stream_options: { include_usage: true },
  });
  const streamed = chunks.at(-1)?.usage as { prompt_tokens_details: { cached_tokens: number } };
  assert.equal(streamed.prompt_tokens_details.cached_tokens, cachedAfter(2));
  // Another model's prompt of the same text shares nothing.
  const other = await postJson(`${url}/chat/completions`, { model: 'other', messages: chatTurns(3) });
  assert.equal((other.usage as typeof usage).prompt_tokens_details.cached_tokens, 0);
  const stats = node.stats().prefixCache;
  assert.equal(stats?.hitTokens, cachedAfter(1) + cachedAfter(2));
});

test('a node without a prefix cache reports no cached tokens', TIMEOUT, async (t) => {
  const { url } = await start(t, {});
  await postJson(`${url}/chat/completions`, { model: 'm', messages: chatTurns(1) });
  const second = await postJson(`${url}/chat/completions`, { model: 'm', messages: chatTurns(2) });
  assert.deepEqual((second.usage as { prompt_tokens_details: unknown }).prompt_tokens_details, { cached_tokens: 0 });
});

test('responses: input_tokens_details.cached_tokens, JSON and stream', TIMEOUT, async (t) => {
  const { url } = await start(t, CACHE);
  const input = (turns: number) => chatTurns(turns).filter((message) => message.role !== 'system');
  const body = (turns: number) => ({ model: 'm', instructions: words('system', 300), input: input(turns) });
  await postJson(`${url}/responses`, body(1));
  const reply = await postJson(`${url}/responses`, body(2));
  const usage = reply.usage as { input_tokens: number; input_tokens_details: { cached_tokens: number } };
  assert.equal(usage.input_tokens, countPromptTokens(chatTurns(2)));
  assert.equal(usage.input_tokens_details.cached_tokens, cachedAfter(1));
  const events = await postStream(`${url}/responses`, { ...body(3), stream: true });
  const completed = events.find((event) => event.type === 'response.completed')?.response as { usage: typeof usage };
  assert.equal(completed.usage.input_tokens_details.cached_tokens, cachedAfter(2));
});

test('anthropic: cache_read_input_tokens, input_tokens the rest, JSON and stream', TIMEOUT, async (t) => {
  const { url } = await start(t, { ...CACHE, protocol: 'anthropic' });
  const body = (turns: number) => ({
    model: 'claude-sim',
    max_tokens: 100,
    system: words('system', 300),
    messages: chatTurns(turns).filter((message) => message.role !== 'system'),
  });
  // The system text is a message without a role; its tokens are those of the chat prompt.
  const prompt = (turns: number) => countPromptTokens(chatTurns(turns));
  const cached = (turns: number) => Math.floor(prompt(turns) / 16) * 16;
  const first = await postJson(`${url}/messages`, body(1));
  assert.equal((first.usage as { cache_read_input_tokens: number }).cache_read_input_tokens, 0);
  const second = await postJson(`${url}/messages`, body(2));
  const usage = second.usage as { input_tokens: number; cache_read_input_tokens: number };
  assert.equal(usage.cache_read_input_tokens, cached(1));
  assert.equal(usage.input_tokens + usage.cache_read_input_tokens, prompt(2));
  const events = await postStream(`${url}/messages`, { ...body(3), stream: true });
  const start_ = events.find((event) => event.type === 'message_start')?.message as { usage: typeof usage };
  assert.equal(start_.usage.cache_read_input_tokens, cached(2));
  assert.equal(start_.usage.input_tokens, prompt(3) - cached(2));
});

test('gemini: cachedContentTokenCount inside promptTokenCount', TIMEOUT, async (t) => {
  const { url } = await start(t, { ...CACHE, protocol: 'gemini' });
  const body = (turns: number) => ({
    systemInstruction: { parts: [{ text: words('system', 300) }] },
    contents: chatTurns(turns)
      .filter((message) => message.role !== 'system')
      .map((message) => ({ role: message.role === 'user' ? 'user' : 'model', parts: [{ text: message.content }] })),
  });
  await postJson(`${url}/models/gem:generateContent`, body(1));
  const second = await postJson(`${url}/models/gem:generateContent`, body(2));
  const usage = second.usageMetadata as { promptTokenCount: number; cachedContentTokenCount: number };
  assert.ok(usage.cachedContentTokenCount > 0 && usage.cachedContentTokenCount < usage.promptTokenCount);
  assert.equal(usage.cachedContentTokenCount % 16, 0);
});

test('the first-token delay is the base plus the cost of each uncached prompt token', TIMEOUT, async (t) => {
  const { node, url } = await start(t, { ...CACHE, firstByteMs: 5, prefillMsPerToken: 0.01 });
  await postJson(`${url}/chat/completions`, { model: 'm', messages: chatTurns(1) });
  const cold = node.stats().lastPrefill;
  assert.deepEqual(cold, {
    promptTokens: countPromptTokens(chatTurns(1)),
    cachedTokens: 0,
    firstTokenDelayMs: 5 + countPromptTokens(chatTurns(1)) * 0.01,
  });
  await postJson(`${url}/chat/completions`, { model: 'm', messages: chatTurns(2) });
  const warm = node.stats().lastPrefill;
  const uncached = countPromptTokens(chatTurns(2)) - cachedAfter(1);
  assert.equal(warm?.cachedTokens, cachedAfter(1));
  assert.ok(Math.abs((warm?.firstTokenDelayMs ?? 0) - (5 + uncached * 0.01)) < 1e-9);
  // The warm turn is longer than the cold one yet its delay is shorter: only new tokens cost.
  assert.ok((warm?.firstTokenDelayMs ?? 0) < (cold?.firstTokenDelayMs ?? 0));
  // Emptied, the cache makes the next turn pay for its whole prompt.
  node.clearPrefixCache();
  await postJson(`${url}/chat/completions`, { model: 'm', messages: chatTurns(3) });
  assert.equal(node.stats().lastPrefill?.cachedTokens, 0);
});

/** The value of one sample line of a Prometheus text exposition. */
function sample(text: string, name: string): number {
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}{`));
  assert.ok(line !== undefined, `${name} is exposed`);
  assert.match(line, /\{model_name="simulated",engine="0"\}/);
  return Number(line.split(' ').at(-1));
}

test("GET /metrics: vLLM's running, waiting, KV-cache usage and prefix-cache counters", TIMEOUT, async (t) => {
  const { node, url } = await start(t, {
    prefixCache: { capacityTokens: 10_000 },
    maxNumSeqs: 2,
    firstByteMs: 400,
  });
  const root = url.replace(/\/v1$/, '');
  const idle = await fetch(`${root}/metrics`);
  assert.equal(idle.status, 200);
  assert.match(idle.headers.get('content-type') ?? '', /^text\/plain/);
  const idleText = await idle.text();
  assert.match(idleText, /# TYPE vllm:prefix_cache_hits_total counter/);
  assert.match(idleText, /# TYPE vllm:num_requests_running gauge/);
  assert.equal(sample(idleText, 'vllm:num_requests_running'), 0);
  assert.equal(sample(idleText, 'vllm:prefix_cache_queries_total'), 0);

  // Five at once on a batch of two: two run, three wait.
  const requests = Array.from({ length: 5 }, () =>
    postJson(`${url}/chat/completions`, { model: 'm', messages: chatTurns(1) }),
  );
  await waitFor(() => node.stats().waiting === 3, 5000, { everyMs: 5 });
  const busy = await (await fetch(`${root}/metrics`)).text();
  assert.equal(sample(busy, 'vllm:num_requests_running'), 2);
  assert.equal(sample(busy, 'vllm:num_requests_waiting'), 3);
  await Promise.all(requests);
  await waitFor(() => node.stats().running === 0, 5000, { everyMs: 5 });
  await postJson(`${url}/chat/completions`, { model: 'm', messages: chatTurns(2) });
  const done = await (await fetch(`${url}/metrics`)).text();
  const prompt1 = countPromptTokens(chatTurns(1));
  assert.equal(sample(done, 'vllm:num_requests_waiting'), 0);
  assert.equal(sample(done, 'vllm:kv_cache_usage_perc'), 0);
  assert.equal(sample(done, 'vllm:gpu_cache_usage_perc'), 0);
  assert.equal(sample(done, 'vllm:prefix_cache_queries_total'), 5 * prompt1 + countPromptTokens(chatTurns(2)));
  // The first computes it all; the four after it find every full block but the one recomputed.
  const repeat = Math.floor(prompt1 / 16) * 16;
  assert.equal(
    sample(done, 'vllm:prefix_cache_hits_total'),
    4 * (repeat < prompt1 ? repeat : repeat - 16) + cachedAfter(1),
  );
});

test('the KV-cache usage gauge is the running prompts over the capacity', TIMEOUT, async (t) => {
  const { url } = await start(t, { prefixCache: { capacityTokens: 4000 }, prefillMsPerToken: 1 });
  const pending = postJson(`${url}/chat/completions`, { model: 'm', messages: chatTurns(1) });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const text = await (await fetch(`${url.replace(/\/v1$/, '')}/metrics`)).text();
  assert.equal(sample(text, 'vllm:kv_cache_usage_perc'), countPromptTokens(chatTurns(1)) / 4000);
  await pending;
});
