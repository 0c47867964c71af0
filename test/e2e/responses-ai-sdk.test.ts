import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 20: the Vercel AI SDK's default OpenAI provider (`createOpenAI()(model)` calls
// /v1/responses, with `store` true and earlier assistant turns replayed as item
// references) works unchanged through Switchyard on a simulated node of each protocol:
// generateText, streamText, and a tool loop the SDK runs itself.

const API_KEY = 'sk-e2e-responses-ai-sdk-0123456789';
const TIMEOUT = { timeout: 20_000 };
const SCRIPT = `
      scripts:
        "*":
          - when: { tools_offered: true, last_role: user }
            call: { tool: "weather", arguments: { city: "Oslo" } }
          - when: { last_role: tool }
            answer: "Forecast: {{tool_result}}"`;

describe('the AI SDK default OpenAI provider through the Responses door', () => {
  let gateway: TestGateway;
  let openai: ReturnType<typeof createOpenAI>;
  let native: SimulatedNode;

  before(async () => {
    native = await startSimulator({
      scripts: {
        '*': [
          { when: { tools_offered: true, last_role: 'user' }, call: { tool: 'weather', arguments: { city: 'Oslo' } } },
          { when: { last_role: 'tool' }, answer: 'Forecast: {{tool_result}}' },
        ],
      },
    });
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
  - { id: native, provider: openai, base_url: "${native.baseUrl}", apis: [chat, responses] }
models:
  - { id: sdk-native, routes: [{ node: native }] }
  - { id: sdk-openai, reasoning: { default_effort: low }, routes: [{ node: sim-openai }] }
  - { id: sdk-claude, default_max_tokens: 4000, reasoning: { default_effort: low }, routes: [{ node: sim-claude, model: claude-sim }] }
  - { id: sdk-gemini, routes: [{ node: sim-gemini, model: gemini-sim }] }
keys:
  - { key: ${API_KEY} }
`);
    openai = createOpenAI({ apiKey: API_KEY, baseURL: gateway.baseUrl });
  });

  after(async () => {
    await gateway?.close();
    await native?.close();
  });

  const weather = tool({
    description: 'Weather for a city',
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    }),
    execute: ({ city }) => Promise.resolve(`${city}: 18 °C and clear`),
  });

  test(
    'a node that serves the Responses API itself: generateText, streamText and a store: false tool loop pass through',
    TIMEOUT,
    async () => {
      const generated = await generateText({ model: openai('sdk-native'), prompt: 'Say hello.', maxRetries: 0 });
      assert.ok(generated.text.length > 0);
      assert.equal(native.stats().lastRequest?.path, '/v1/responses');
      const streamed = streamText({ model: openai('sdk-native'), prompt: 'Tell me a story.', maxRetries: 0 });
      assert.ok((await streamed.text).length > 0);
      const looped = await generateText({
        model: openai('sdk-native'),
        prompt: 'What is the weather in Oslo?',
        tools: { weather },
        stopWhen: stepCountIs(3),
        providerOptions: { openai: { store: false } },
        maxRetries: 0,
      });
      assert.equal(looped.text, 'Forecast: Oslo: 18 °C and clear');
    },
  );

  for (const model of ['sdk-openai', 'sdk-claude', 'sdk-gemini']) {
    test(`${model}: generateText and streamText with the default provider`, TIMEOUT, async () => {
      const generated = await generateText({ model: openai(model), prompt: 'Say hello.', maxRetries: 0 });
      assert.ok(generated.text.length > 0);
      assert.equal(generated.finishReason, 'stop');
      assert.ok((generated.usage.inputTokens ?? 0) > 0 && (generated.usage.outputTokens ?? 0) > 0);
      assert.match(String(generated.response.id), /^resp_/);

      const streamed = streamText({ model: openai(model), prompt: 'Tell me a story.', maxRetries: 0 });
      let text = '';
      for await (const part of streamed.textStream) text += part;
      assert.ok(text.length > 0);
      assert.equal(await streamed.text, text);
      assert.equal(await streamed.finishReason, 'stop');
      assert.ok(((await streamed.usage).outputTokens ?? 0) > 0);
    });

    test(
      `${model}: a tool loop the SDK runs (the second step replays the first by item reference)`,
      TIMEOUT,
      async () => {
        const result = await generateText({
          model: openai(model),
          prompt: 'What is the weather in Oslo?',
          tools: { weather },
          stopWhen: stepCountIs(3),
          maxRetries: 0,
        });
        assert.equal(result.steps.length, 2);
        assert.deepEqual(
          result.steps[0]?.toolCalls.map((call) => [call.toolName, call.input]),
          [['weather', { city: 'Oslo' }]],
        );
        assert.equal(result.text, 'Forecast: Oslo: 18 °C and clear');

        const streamed = streamText({
          model: openai(model),
          prompt: 'What is the weather in Oslo?',
          tools: { weather },
          stopWhen: stepCountIs(3),
          maxRetries: 0,
        });
        assert.equal(await streamed.text, 'Forecast: Oslo: 18 °C and clear');
      },
    );
  }
});
