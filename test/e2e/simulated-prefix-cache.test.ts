import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

const API_KEY = 'sk-e2e-prefix-cache-0123456789';
const TIMEOUT = { timeout: 10_000 };

function words(tag: string, count: number): string {
  return Array.from({ length: count }, (_, index) => `${tag}${index}`).join(' ');
}

describe('a simulated node with a prefix cache behind the gateway', () => {
  let gateway: TestGateway;
  let client: OpenAI;

  before(async () => {
    gateway = await startTestGateway(`
nodes:
  - id: warm
    provider: simulated
    simulated: { prefix_cache: { capacity_tokens: 100000 }, prefill_ms_per_token: 0.001, max_num_seqs: 4 }
models:
  - id: agent
    pricing: { input: 1, cached_input: 0.1, output: 2 }
    routes: [{ node: warm }]
keys:
  - { key: ${API_KEY} }
`);
    client = new OpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl, maxRetries: 0, timeout: 5000 });
  });

  after(async () => {
    await gateway?.close();
  });

  test(
    'the second turn of a conversation comes back with cached tokens, billed at the cached price',
    TIMEOUT,
    async () => {
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        { role: 'system', content: words('system', 500) },
        { role: 'user', content: words('ask', 50) },
      ];
      const first = await client.chat.completions.create({ model: 'agent', messages }).withResponse();
      assert.equal(first.data.usage?.prompt_tokens_details?.cached_tokens, 0);
      messages.push({ role: 'assistant', content: first.data.choices[0]?.message.content ?? '' });
      messages.push({ role: 'user', content: words('next', 50) });
      const { data: stream, response } = await client.chat.completions
        .create({ model: 'agent', messages, stream: true, stream_options: { include_usage: true } })
        .withResponse();
      let usage: OpenAI.CompletionUsage | undefined | null;
      for await (const chunk of stream) usage = chunk.usage ?? usage;
      const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
      const firstPrompt = first.data.usage?.prompt_tokens ?? 0;
      // Every full 16-token block of the first prompt.
      assert.equal(cached, Math.floor(firstPrompt / 16) * 16);
      const line = await gateway.logLine(response.headers.get('x-request-id'));
      assert.equal(line?.usage?.cached_tokens, cached);
      // Input at $1/M, cached input at $0.1/M, output at $2/M.
      const prompt = usage?.prompt_tokens ?? 0;
      const expected = ((prompt - cached) * 1 + cached * 0.1 + (usage?.completion_tokens ?? 0) * 2) / 1e6;
      assert.ok(Math.abs(Number(line?.cost_usd) - expected) < 1e-9, `${String(line?.cost_usd)} vs ${expected}`);
    },
  );
});
