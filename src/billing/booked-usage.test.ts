import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import { emptySummary } from '../providers/types.js';
import { bookedUsage, countedUsage, estimatedPromptTokens, unreportedReplyUsage } from './booked-usage.js';

const request = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(40) }] } as ChatRequest;
const usage = (fields: Record<string, unknown>) =>
  ({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, ...fields }) as Usage;

test('a node usage of whole counts is booked as it came', () => {
  const given = usage({
    prompt_tokens_details: { cached_tokens: 4 },
    completion_tokens_details: { reasoning_tokens: 2 },
  });
  assert.equal(countedUsage(given), given);
  assert.equal(
    countedUsage(usage({ prompt_tokens_details: null, completion_tokens_details: { reasoning_tokens: null } })) !==
      undefined,
    true,
  );
});

test('a missing total is the sum; the rest of the usage is kept', () => {
  assert.deepEqual(countedUsage(usage({ total_tokens: undefined, extra: 1 })), {
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    extra: 1,
  });
});

test('counts that are not whole numbers ≥ 0 make the usage unusable', () => {
  for (const bad of [
    { prompt_tokens: '10' },
    { completion_tokens: -1 },
    { completion_tokens: 1.5 },
    { prompt_tokens: Number.NaN },
    { prompt_tokens: undefined },
    { prompt_tokens_details: { cached_tokens: '3' } },
    { completion_tokens_details: { reasoning_tokens: -2 } },
  ]) {
    assert.equal(countedUsage(usage(bad)), undefined, JSON.stringify(bad));
  }
  assert.equal(countedUsage(null), undefined);
  assert.equal(countedUsage('lots' as unknown as Usage), undefined);
});

test('bookedUsage: the node usage when counted, else an estimate marked as such', () => {
  const summary = { ...emptySummary(), contentCharacters: 20, usage: usage({ completion_tokens: 'many' }) };
  const bad = bookedUsage(estimatedPromptTokens(request), summary);
  assert.equal(bad.estimated, true);
  assert.equal(bad.sent, false);
  assert.deepEqual([bad.usage.prompt_tokens, bad.usage.completion_tokens, bad.usage.total_tokens], [13, 5, 18]);

  const good = bookedUsage(estimatedPromptTokens(request), { ...summary, usage: usage({}) });
  assert.equal(good.usage.completion_tokens, 5);
  assert.equal(good.estimated, false);
  assert.equal(good.sent, true);
  assert.equal(good.reportedFeatures, undefined);
});

test('bookedUsage keeps the priced features the node reported', () => {
  const booked = bookedUsage(estimatedPromptTokens(request), {
    ...emptySummary(),
    usage: usage({}),
    serviceTier: 'priority',
  });
  assert.deepEqual(booked.reportedFeatures, { serverToolCalls: undefined, serviceTier: 'priority' });
});

test('estimatedPromptTokens: a token per four characters of the text parts, and three a message', () => {
  assert.equal(estimatedPromptTokens(request), 13);
  const parts = {
    model: 'm',
    messages: [
      { role: 'system', content: 'abcd' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'efgh' },
          { type: 'image_url', image_url: { url: 'x'.repeat(99) } },
        ],
      },
    ],
  } as ChatRequest;
  assert.equal(estimatedPromptTokens(parts), 2 + 2 * 3);
});

test('unreportedReplyUsage: the prompt estimated, the completion as bounded, marked estimated', () => {
  const booked = unreportedReplyUsage(request, 7);
  assert.equal(booked.estimated, true);
  assert.deepEqual(booked.usage, { prompt_tokens: 13, completion_tokens: 7, total_tokens: 20, estimated: true });
});
