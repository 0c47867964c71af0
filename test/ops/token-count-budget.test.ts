import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { expectError } from '../support/http-assertions.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 28 finding 7: counting tokens costs no money, only CPU, and one key sending 3.9 MB
// texts at 10 req/s pushed other clients to p50 ~1 s. Both counting routes share one
// policy: the tokens one key may have counted per minute are bounded
// (limits.count_tokens_per_minute), taken before the body is read by its length (a token
// is at least a byte), so requests sent at once cannot all pass.

const COUNTER = 'sk-token-count-budget-a-0123456789';
const OTHER = 'sk-token-count-budget-b-0123456789';
const BURST = 'sk-token-count-budget-c-0123456789';
const BUDGET = 12_000;
/** About 2,000 tokens, 10 KB of prose: one count fits the budget, the next waits. */
const PROSE = 'The eastern line has twelve switches and a signal box. '.repeat(180);

describe('the counting routes are bounded per key', () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway(`
limits: { count_tokens_per_minute: ${BUDGET} }
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
keys:
  - { key: ${COUNTER} }
  - { key: ${OTHER} }
  - { key: ${BURST} }
`);
  });
  after(() => gateway?.close());

  const inputTokens = (key: string, input: string) =>
    fetch(`${gateway.baseUrl}/responses/input_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', input }),
      signal: AbortSignal.timeout(10_000),
    });

  test('count_tokens and input_tokens draw on one budget per key; spent: 429 with Retry-After; others unaffected', async () => {
    const anthropic = new Anthropic({ apiKey: COUNTER, baseURL: gateway.origin, maxRetries: 0 });
    const counted = await anthropic.messages.countTokens({ model: 'm', messages: [{ role: 'user', content: PROSE }] });
    assert.ok(counted.input_tokens > 1_000 && counted.input_tokens < BUDGET / 2, `${counted.input_tokens} tokens`);
    const second = await inputTokens(COUNTER, PROSE);
    assert.equal(second.status, 429, 'two bodies of 10 KB do not fit a budget of 12,000');
    await second.arrayBuffer();

    const refused = await inputTokens(COUNTER, 'Hello. '.repeat(500));
    const retryAfter = Number(refused.headers.get('retry-after'));
    await expectError(refused, { status: 429, code: 'rate_limited', type: 'rate_limit_error' });
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    await assert.rejects(
      anthropic.messages.countTokens({ model: 'm', messages: [{ role: 'user', content: PROSE }] }),
      Anthropic.RateLimitError,
    );
    const small = await inputTokens(COUNTER, 'Hello.');
    assert.equal(small.status, 200, 'a small count still fits what is left of the minute');
    await small.arrayBuffer();

    const other = await inputTokens(OTHER, PROSE);
    assert.equal(other.status, 200, 'another key counts as before');
    await other.arrayBuffer();
    const generation = await postChat(gateway.baseUrl, COUNTER, chatBody('m', { max_tokens: 3 }));
    assert.equal(generation.status, 200, "the key's generations are not limited by its counting");
    await generation.arrayBuffer();
  });

  test('counts sent at once cannot all pass before the first is charged', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => inputTokens(BURST, PROSE)));
    const statuses = await Promise.all(answers.map(async (answer) => (await answer.arrayBuffer(), answer.status)));
    assert.deepEqual(
      statuses.filter((status) => status === 200).length,
      1,
      `one of six 10 KB counts fits a 12,000 budget (${statuses.join(', ')})`,
    );
    assert.equal(statuses.filter((status) => status === 429).length, 5);
  });

  test('a model the key may not use is 404 on both routes, before anything is counted', async () => {
    const anthropic = new Anthropic({ apiKey: OTHER, baseURL: gateway.origin, maxRetries: 0 });
    await assert.rejects(
      anthropic.messages.countTokens({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
      Anthropic.NotFoundError,
    );
    const response = await fetch(`${gateway.baseUrl}/responses/input_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OTHER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nope', input: 'x' }),
    });
    assert.equal(response.status, 404);
  });
});
