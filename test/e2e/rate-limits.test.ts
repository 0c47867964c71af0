import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { chatBody, postChat } from '../support/post-chat.js';

const KEY = 'sk-rate-limit-test-000000000001';
const OTHER = 'sk-rate-limit-test-000000000002';

describe('rate limits on the request path', () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway(`
limits: { key: { rpm: 3 }, ip: { rpm: 1000 } }
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
keys:
  - { key: ${KEY} }
  - { key: ${OTHER}, limits: { rpm: 5 } }
`);
  });
  after(() => gateway.close());

  const chat = (key: string) => postChat(gateway.baseUrl, key, chatBody('m', { max_tokens: 3 }));

  test('the 4th request in a minute with rpm 3 is 429 rate_limited with Retry-After; successes carry X-RateLimit-*', async () => {
    const remaining: string[] = [];
    for (let index = 0; index < 3; index++) {
      const response = await chat(KEY);
      assert.equal(response.status, 200);
      await response.text();
      assert.equal(response.headers.get('x-ratelimit-limit'), '3');
      remaining.push(response.headers.get('x-ratelimit-remaining') ?? '');
      assert.ok(Number(response.headers.get('x-ratelimit-reset')) >= 1);
    }
    assert.deepEqual(remaining, ['2', '1', '0']);
    const refused = await chat(KEY);
    assert.equal(refused.status, 429);
    const body = (await refused.json()) as { error: { code: string; type: string; request_id: string } };
    assert.equal(body.error.code, 'rate_limited');
    assert.ok(body.error.request_id);
    // GCRA at 3/min: the next unit frees up 20 s after the burst (rounded up to whole seconds).
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 19 && retryAfter <= 20, `Retry-After ${retryAfter}`);
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  });

  test("a key's own limit overrides the default; another key is not affected by the first one's limit", async () => {
    for (let index = 0; index < 5; index++) {
      const response = await chat(OTHER);
      assert.equal(response.status, 200, `request ${index + 1}`);
      assert.equal(response.headers.get('x-ratelimit-limit'), '5');
      await response.text();
    }
    assert.equal((await chat(OTHER)).status, 429);
  });
});
