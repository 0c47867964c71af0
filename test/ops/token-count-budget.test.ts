import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { expectError } from '../support/http-assertions.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 28 finding 7: counting tokens costs no money, only CPU, and one key sending 3.9 MB
// texts at 10 req/s pushed other clients to p50 ~1 s. Both counting routes share one
// policy: the tokens one key has counted per minute are bounded (limits.count_tokens_per_minute),
// as a debt: a count is answered while the key is not in debt, then charged.

const COUNTER = 'sk-token-count-budget-a-0123456789';
const OTHER = 'sk-token-count-budget-b-0123456789';
const BUDGET = 3_000;
/** About 2,000 tokens of prose: one count fits the budget, the second puts the key in debt. */
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

  test('count_tokens and input_tokens draw on one budget per key; in debt: 429 with Retry-After; others unaffected', async () => {
    const anthropic = new Anthropic({ apiKey: COUNTER, baseURL: gateway.origin, maxRetries: 0 });
    const counted = await anthropic.messages.countTokens({ model: 'm', messages: [{ role: 'user', content: PROSE }] });
    assert.ok(counted.input_tokens > BUDGET / 2 && counted.input_tokens < BUDGET, `${counted.input_tokens} tokens`);
    const second = await inputTokens(COUNTER, PROSE);
    assert.equal(second.status, 200, 'the budget was not in debt yet: answered, then charged');
    await second.arrayBuffer();

    const refused = await inputTokens(COUNTER, 'Hello.');
    const retryAfter = Number(refused.headers.get('retry-after'));
    await expectError(refused, { status: 429, code: 'rate_limited', type: 'rate_limit_error' });
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    await assert.rejects(
      anthropic.messages.countTokens({ model: 'm', messages: [{ role: 'user', content: 'Hello.' }] }),
      Anthropic.RateLimitError,
    );

    const other = await inputTokens(OTHER, PROSE);
    assert.equal(other.status, 200, 'another key counts as before');
    await other.arrayBuffer();
    const generation = await postChat(gateway.baseUrl, COUNTER, chatBody('m', { max_tokens: 3 }));
    assert.equal(generation.status, 200, "the key's generations are not limited by its counting");
    await generation.arrayBuffer();
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
