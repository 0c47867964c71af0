import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { countPromptTokens, DEFAULT_OUTPUT_RESERVE, marksCacheBreakpoints, outputCapOf } from './estimate-request.js';
import { modelConfig } from '../../test/support/model-config.js';

const base = modelConfig();
const ask = (fields: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'm', messages: [], ...fields });

test('outputCapOf: client cap or default_max_tokens clamped to max_output_tokens, else max_output_tokens, else the context, else the default reserve', () => {
  const model = { ...base, maxOutputTokens: 300, defaultMaxTokens: 120 };
  assert.deepEqual(outputCapOf(ask(), model, 10), { tokens: 120, contextBound: false });
  assert.deepEqual(outputCapOf(ask({ max_tokens: 5000 }), model, 10), { tokens: 300, contextBound: false });
  assert.deepEqual(outputCapOf(ask({ max_completion_tokens: 50, max_tokens: 5000 }), model, 10), {
    tokens: 50,
    contextBound: false,
  });
  assert.deepEqual(
    outputCapOf(ask({ n: 3 }), { ...base, maxOutputTokens: 300 }, 10),
    { tokens: 300, contextBound: false },
    'per choice',
  );
  assert.deepEqual(outputCapOf(ask(), { ...base, contextLength: 1000 }, 10), { tokens: 990, contextBound: true });
  assert.deepEqual(outputCapOf(ask({ max_tokens: 5000 }), { ...base, contextLength: 1000 }, 10), {
    tokens: 990,
    contextBound: false,
  });
  assert.deepEqual(outputCapOf(ask(), base, 10), { tokens: DEFAULT_OUTPUT_RESERVE, contextBound: false });
});

test('countPromptTokens: file and audio parts are counted by their size; marksCacheBreakpoints sees cache_control on messages, parts and tools', () => {
  const count = (text: string) => Math.ceil(text.length / 4);
  const pdf = `data:application/pdf;base64,${'A'.repeat(40_000)}`; // 30,000 bytes
  const wav = 'A'.repeat(40_000); // 30,000 bytes: 30 tokens of WAV, 60 of MP3
  const withParts = (content: unknown[]) =>
    countPromptTokens(ask({ messages: [{ role: 'user', content }] } as unknown as Partial<ChatRequest>), count);
  const bare = withParts([]);
  assert.equal(withParts([{ type: 'file', file: { file_data: pdf } }]) - bare, 7500);
  assert.equal(withParts([{ type: 'file', file: { file_id: 'file-abc' } }]) - bare, 3000);
  assert.equal(withParts([{ type: 'input_audio', input_audio: { data: wav, format: 'wav' } }]) - bare, 30);
  assert.equal(withParts([{ type: 'input_audio', input_audio: { data: wav, format: 'mp3' } }]) - bare, 60);

  const marked = (fields: Record<string, unknown>) => marksCacheBreakpoints(ask(fields as Partial<ChatRequest>));
  assert.equal(marked({ messages: [{ role: 'user', content: 'x' }] }), false);
  assert.equal(marked({ messages: [{ role: 'user', content: 'x', cache_control: { type: 'ephemeral' } }] }), true);
  assert.equal(
    marked({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }] }],
    }),
    true,
  );
  assert.equal(
    marked({ tools: [{ type: 'function', function: { name: 'f' }, cache_control: { type: 'ephemeral', ttl: '1h' } }] }),
    true,
  );
});

test('outputCapOf for a reasoning request without a client cap: the larger of the usual cap and budget + answer_tokens, within max_output_tokens and the context', () => {
  const reasoning = {
    defaultEffort: 'medium',
    style: 'budget',
    budgets: { low: 1024, medium: 8192, high: 24576 },
    levels: { low: 'low', medium: 'medium', high: 'high' },
  } as const;
  const model = { ...base, reasoning };
  assert.deepEqual(outputCapOf(ask(), model, 10, 'low'), { tokens: 5120, contextBound: false });
  assert.deepEqual(outputCapOf(ask(), model, 10, 'medium'), { tokens: 12288, contextBound: false });
  assert.deepEqual(outputCapOf(ask(), model, 10, 'high'), { tokens: 28672, contextBound: false });
  assert.deepEqual(
    outputCapOf(ask(), { ...model, reasoning: { ...reasoning, answerTokens: 100 } }, 10, 'high'),
    { tokens: 24676, contextBound: false },
    'answer_tokens',
  );
  assert.deepEqual(
    outputCapOf(ask({ reasoning: { max_tokens: 3000 } }), model, 10, 'high'),
    { tokens: 7096, contextBound: false },
    "the client's budget",
  );
  assert.deepEqual(
    outputCapOf(ask(), { ...model, maxOutputTokens: 64000 }, 10, 'high'),
    { tokens: 64000, contextBound: false },
    'never below the usual cap',
  );
  assert.deepEqual(
    outputCapOf(ask(), { ...model, maxOutputTokens: 20000 }, 10, 'high'),
    { tokens: 20000, contextBound: false },
    'within max_output_tokens',
  );
  assert.deepEqual(
    outputCapOf(ask(), { ...model, contextLength: 200000 }, 10, 'high'),
    { tokens: 28672, contextBound: false },
    'a context is no longer the cap',
  );
  assert.deepEqual(
    outputCapOf(ask(), { ...model, contextLength: 10000 }, 10, 'high'),
    { tokens: 9990, contextBound: true },
    'within the context',
  );
  assert.deepEqual(
    outputCapOf(ask({ max_tokens: 2000 }), model, 10, 'high'),
    { tokens: 2000, contextBound: false },
    "the client's cap stands",
  );
  assert.deepEqual(
    outputCapOf(ask(), { ...model, defaultMaxTokens: 32000 }, 10, 'high'),
    { tokens: 32000, contextBound: false },
    'default_max_tokens when larger',
  );
});
