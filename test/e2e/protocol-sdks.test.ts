import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import { SimulatedNode } from '../../src/simulator/simulated-node.js';

/**
 * The local Anthropic and Gemini servers the gateway is tested against must speak those
 * protocols as the vendors do: here the vendors' own official SDKs talk to them.
 */

const TIMEOUT = { timeout: 10_000 };
const ANTHROPIC_KEY = 'sk-ant-sdk-test';
const GEMINI_KEY = 'gemini-sdk-test';

/** The SDKs take the server root and add /v1 (Anthropic) or /v1beta (Gemini) themselves. */
function rootOf(node: SimulatedNode): string {
  return new URL(node.baseUrl).origin;
}

describe('the official @anthropic-ai/sdk against the simulated Anthropic node', () => {
  let node: SimulatedNode;
  let client: Anthropic;

  before(async () => {
    node = new SimulatedNode({ protocol: 'anthropic', apiKey: ANTHROPIC_KEY });
    await node.listen(0);
    client = new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: rootOf(node), maxRetries: 0 });
  });
  after(() => node?.close());

  const request = {
    model: 'claude-sonnet-4-5',
    max_tokens: 4096,
    system: 'Answer briefly.',
    thinking: { type: 'enabled' as const, budget_tokens: 2048 },
    messages: [{ role: 'user' as const, content: 'Is the eastern switchyard open tonight?' }],
  };

  test(
    'messages.create: a thinking block with its signature, then text; usage counts thinking in output_tokens',
    TIMEOUT,
    async () => {
      const message = await client.messages.create(request);
      assert.equal(message.type, 'message');
      assert.equal(message.role, 'assistant');
      assert.equal(message.stop_reason, 'end_turn');
      const [thinking, text] = message.content;
      assert.ok(thinking?.type === 'thinking' && text?.type === 'text', 'thinking first, then text');
      assert.ok(thinking.signature.length > 0);
      assert.equal(thinking.thinking.split(' ').length, 32, 'budget 2048 → 32 thinking tokens');
      assert.equal(message.usage.output_tokens, 32 + text.text.split(' ').length);
      assert.match(
        String(node.stats().lastRequest?.headers['anthropic-version']),
        /^\d{4}-\d{2}-\d{2}$/,
        'the SDK names its API version',
      );
    },
  );

  test(
    'messages.stream: the SDK assembles the same message from the event stream; every event kind arrives in order',
    TIMEOUT,
    async () => {
      const expected = await client.messages.create(request);
      const stream = client.messages.stream(request);
      const kinds: string[] = [];
      stream.on('streamEvent', (event) => kinds.push(event.type));
      const message = await stream.finalMessage();
      // `citations: null` is on the non-streamed text block only, as on the real API.
      const essentials = (blocks: Anthropic.ContentBlock[]) =>
        blocks.map((block) => (block.type === 'text' ? { type: block.type, text: block.text } : block));
      assert.deepEqual(
        essentials(message.content),
        essentials(expected.content),
        'same blocks, same signature, whether streamed or not',
      );
      assert.equal(message.stop_reason, 'end_turn');
      assert.equal(message.usage.output_tokens, expected.usage.output_tokens, 'cumulative usage from message_delta');
      assert.equal(message.usage.input_tokens, expected.usage.input_tokens, 'input usage from message_start');
      assert.equal(kinds[0], 'message_start');
      assert.equal(kinds.at(-1), 'message_stop');
      assert.equal(kinds.at(-2), 'message_delta');
      for (const kind of ['content_block_start', 'content_block_delta', 'content_block_stop'])
        assert.ok(kinds.includes(kind), kind);
    },
  );

  test('errors: the SDK picks its error classes from our statuses and bodies', TIMEOUT, async () => {
    const wrongKey = new Anthropic({ apiKey: 'sk-ant-wrong', baseURL: rootOf(node), maxRetries: 0 });
    await assert.rejects(
      wrongKey.messages.create(request),
      (error: unknown) => error instanceof Anthropic.AuthenticationError && error.status === 401,
    );
    await assert.rejects(
      client.messages.create({ ...request, thinking: { type: 'enabled', budget_tokens: 512 } }),
      (error: unknown) => {
        assert.ok(error instanceof Anthropic.BadRequestError);
        assert.match(error.message, /budget_tokens/);
        return true;
      },
    );
    node.setFaults({ failFirst: { status: 529, count: 1 } });
    await assert.rejects(client.messages.create(request), (error: unknown) => {
      assert.ok(error instanceof Anthropic.InternalServerError);
      assert.equal(error.status, 529);
      assert.equal((error.error as { error?: { type?: string } }).error?.type, 'overloaded_error');
      return true;
    });
    node.setFaults({});
  });
});

describe('the official @google/genai client against the simulated Gemini node', () => {
  let node: SimulatedNode;
  let client: GoogleGenAI;

  before(async () => {
    node = new SimulatedNode({ protocol: 'gemini', apiKey: GEMINI_KEY });
    await node.listen(0);
    client = new GoogleGenAI({ apiKey: GEMINI_KEY, httpOptions: { baseUrl: rootOf(node) } });
  });
  after(() => node?.close());

  const request = {
    model: 'gemini-2.5-flash',
    contents: 'Is the eastern switchyard open tonight?',
    config: { systemInstruction: 'Answer briefly.', thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
  };

  test(
    'generateContent: thought summary part, answer part, usage with thoughts outside candidates',
    TIMEOUT,
    async () => {
      const response = await client.models.generateContent(request);
      const parts = response.candidates?.[0]?.content?.parts ?? [];
      assert.equal(parts[0]?.thought, true);
      assert.equal(parts[0]?.text?.split(' ').length, 16, 'budget 1024 → 16 thought tokens');
      assert.ok(
        response.text && !response.text.includes(parts[0]?.text ?? '\u0000'),
        'the SDK leaves thoughts out of .text',
      );
      const usage = response.usageMetadata;
      assert.equal(usage?.thoughtsTokenCount, 16);
      assert.equal(usage?.candidatesTokenCount, response.text.split(' ').length);
      assert.equal(usage?.totalTokenCount, (usage?.promptTokenCount ?? 0) + (usage?.candidatesTokenCount ?? 0) + 16);
      assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
      assert.equal(node.stats().lastRequest?.path, '/v1beta/models/gemini-2.5-flash:generateContent');
      assert.equal(node.stats().lastRequest?.headers['x-goog-api-key'], GEMINI_KEY);
    },
  );

  test(
    'generateContentStream: the same thoughts and answer in pieces, finish reason and usage on the last chunk',
    TIMEOUT,
    async () => {
      const whole = await client.models.generateContent(request);
      let thoughts = '';
      let text = '';
      let last;
      for await (const chunk of await client.models.generateContentStream(request)) {
        for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
          if (part.thought) thoughts += part.text ?? '';
          else text += part.text ?? '';
        }
        last = chunk;
      }
      const parts = whole.candidates?.[0]?.content?.parts ?? [];
      assert.equal(thoughts, parts[0]?.text);
      assert.equal(text, whole.text);
      assert.equal(last?.candidates?.[0]?.finishReason, 'STOP');
      assert.deepEqual(last?.usageMetadata, whole.usageMetadata);
      assert.equal(node.stats().lastRequest?.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    },
  );

  test('thinking levels, includeThoughts off, and errors as ApiError with the status', TIMEOUT, async () => {
    const level = await client.models.generateContent({
      ...request,
      config: { thinkingConfig: { thinkingLevel: 'HIGH' as never, includeThoughts: false } },
    });
    assert.equal(level.usageMetadata?.thoughtsTokenCount, 128, 'HIGH thinks more, and is counted');
    assert.ok(
      !(level.candidates?.[0]?.content?.parts ?? []).some((part) => part.thought),
      'but no thought parts without includeThoughts',
    );
    await assert.rejects(
      client.models.generateContent({
        ...request,
        config: { thinkingConfig: { thinkingBudget: 1024, thinkingLevel: 'LOW' as never } },
      }),
      (error: unknown) =>
        error instanceof ApiError &&
        error.status === 400 &&
        /only one of thinking budget and thinking level/.test(error.message),
    );
    const wrongKey = new GoogleGenAI({ apiKey: 'wrong', httpOptions: { baseUrl: rootOf(node) } });
    await assert.rejects(
      wrongKey.models.generateContent(request),
      (error: unknown) => error instanceof ApiError && error.status === 400 && /API key not valid/.test(error.message),
    );
    node.setFaults({ failFirst: { status: 503, count: 1 } });
    await assert.rejects(
      client.models.generateContent(request),
      (error: unknown) => error instanceof ApiError && error.status === 503 && /UNAVAILABLE/.test(error.message),
    );
    node.setFaults({});
  });
});
