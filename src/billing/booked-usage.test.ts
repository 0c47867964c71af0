import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestRecord } from '../context/request-context.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import { emptySummary } from '../providers/types.js';
import { bookUsage, countedUsage } from './booked-usage.js';

const request = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(40) }] } as ChatRequest;
const record = (): RequestRecord => ({ frontDoor: 'chat', stream: false, attempts: [], clientAborted: false });
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

test('bookUsage: the node usage when counted, else an estimate marked as such; set once', () => {
  const summary = { ...emptySummary(), contentCharacters: 20, usage: usage({ completion_tokens: 'many' }) };
  const bad = record();
  const booked = bookUsage(bad, request, summary);
  assert.equal(bad.usageEstimated, true);
  assert.deepEqual([booked.prompt_tokens, booked.completion_tokens, booked.total_tokens], [13, 5, 18]);
  assert.equal(bookUsage(bad, request, { ...summary, usage: usage({}) }), booked, 'booked once');

  const good = record();
  assert.equal(bookUsage(good, request, { ...summary, usage: usage({}) }).completion_tokens, 5);
  assert.equal(good.usageEstimated, undefined);
});
