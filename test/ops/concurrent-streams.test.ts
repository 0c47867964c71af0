import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { startSimulator, startTestGateway } from '../support/test-gateway.js';

/**
 * The bounded, in-suite variant of `npm run scale-test` (bench/streams-10k.mjs, 10,000
 * streams in three processes): 1,000 slow streams held at once through one gateway, all
 * of which must finish with [DONE] and no error.
 */
const STREAMS = 1_000;
const KEY = 'sk-ops-concurrency-0123456789';

test(`${STREAMS} concurrent slow streams through one gateway all complete`, { timeout: 60_000 }, async () => {
  const node = await startSimulator({ firstByteMs: 3000, tokensPerSecond: 5 });
  const gateway = await startTestGateway(`
http: { max_connections: ${STREAMS + 50} }
nodes: [{ id: slow, provider: openai, base_url: "${node.baseUrl}", max_concurrency: ${STREAMS + 10} }]
models: [{ id: m, reasoning: { default_effort: low }, routes: [{ node: slow }] }]
limits: { key: { rpm: 1000000 }, ip: { rpm: 1000000 } }
keys: [{ key: ${KEY} }]
`);
  const agent = new Agent({ connections: null, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const body = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'Hold the line.' }] });
  let done = 0;
  const errors: string[] = [];
  try {
    const streams = Array.from({ length: STREAMS }, async () => {
      try {
        const response = await request(`${gateway.baseUrl}/chat/completions`, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body,
        });
        const text = await response.body.text();
        if (response.statusCode === 200 && text.endsWith('data: [DONE]\n\n') && !text.includes('"error"')) done++;
        else errors.push(`${response.statusCode}: ${text.slice(-200)}`);
      } catch (error) {
        errors.push(String((error as NodeJS.ErrnoException).code ?? error));
      }
    });
    await Promise.all(streams);
    assert.deepEqual(errors.slice(0, 5), []);
    assert.equal(done, STREAMS);
    assert.ok(
      node.stats().maxInFlight >= STREAMS * 0.95,
      `the streams overlapped (max in flight on the node: ${node.stats().maxInFlight})`,
    );
    const lines = gateway.logs().filter((line) => line.msg === 'request');
    assert.equal(lines.length, STREAMS, 'one log line per stream');
  } finally {
    await agent.close();
    await gateway.close();
    await node.close();
  }
});
