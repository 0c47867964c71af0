import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { runCli } from '../support/gateway-process.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';

// `switchyard requests` and `switchyard requests show ID` against a running gateway (its
// admin API), as an operator chasing a client's complaint would run them.

const ADMIN_KEY = 'admin-key-requests-cli-0123456789';
const KEY = 'sk-requests-cli-0123456789abcdef';
const ALWAYS = 1_000_000;
const TIMEOUT = { timeout: 60_000 };

describe('switchyard requests (CLI)', () => {
  let good: SimulatedNode;
  let failing: SimulatedNode;
  let gateway: TestGateway;
  let failoverId: string;
  let notFoundId: string;
  const cli = (...args: string[]) => runCli(['requests', ...args, '--url', gateway.origin, '--admin-key', ADMIN_KEY]);

  before(async () => {
    good = await startSimulator();
    failing = await startSimulator({ faults: { failFirst: { count: ALWAYS, status: 503 } } });
    gateway = await startTestGateway(`
admin_key: ${ADMIN_KEY}
request_log: { flush_interval_ms: 50 }
health: { failure_threshold: 1000 }
nodes:
  - { id: good, provider: openai, base_url: "${good.baseUrl}" }
  - { id: failing, provider: openai, base_url: "${failing.baseUrl}" }
models:
  - { id: free, routes: [{ node: good }] }
  - { id: failover, routes: [{ node: failing, priority: 0 }, { node: good, priority: 1 }] }
keys:
  - { key: ${KEY} }
`);
    const failover = await postChat(gateway.baseUrl, KEY, chatBody('failover', { max_tokens: 4, user: 'carol' }));
    assert.equal(failover.status, 200);
    await failover.arrayBuffer();
    failoverId = failover.headers.get('x-request-id') as string;
    const missing = await postChat(gateway.baseUrl, KEY, chatBody('no-such-model'));
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
    notFoundId = missing.headers.get('x-request-id') as string;
    for (let index = 0; index < 3; index++)
      await (await postChat(gateway.baseUrl, KEY, chatBody('free'))).arrayBuffer();
  });

  after(async () => {
    await gateway?.close();
    await Promise.all([good, failing].map((node) => node?.close()));
  });

  test('a table of the newest requests, filtered, with the command for the next page', TIMEOUT, async () => {
    const all = await cli('--since', '1h');
    assert.equal(all.code, 0, all.stderr);
    const lines = all.stdout.trim().split('\n');
    assert.match(lines[0] as string, /^TIME\s+ID\s+DOOR\s+STATUS\s+ERROR_CODE\s+MODEL\s+NODE/);
    assert.equal(lines.length, 1 + 5, all.stdout);
    assert.ok(lines[lines.length - 1]?.includes(failoverId), 'oldest last');

    const errors = await cli('--status', '4xx');
    assert.equal(errors.code, 0, errors.stderr);
    const errorLines = errors.stdout.trim().split('\n').slice(1);
    assert.equal(errorLines.length, 1);
    assert.match(
      errorLines[0] as string,
      new RegExp(`${notFoundId}\\s+chat\\s+404\\s+model_unavailable\\s+no-such-model`),
    );

    const paged = await cli('--limit', '2');
    assert.equal(paged.code, 0, paged.stderr);
    const cursor = /More: add --cursor (\S+)/.exec(paged.stdout)?.[1];
    assert.ok(cursor !== undefined, paged.stdout);
    const next = await cli('--limit', '2', '--cursor', cursor);
    assert.equal(next.stdout.trim().split('\n').length, 1 + 2 + 2, 'two rows and the next cursor');

    const byNode = await cli('--node', 'failing', '--json');
    const page = JSON.parse(byNode.stdout) as { data: Array<{ id: string }> };
    assert.deepEqual(
      page.data.map((record) => record.id),
      [failoverId],
    );
  });

  test('show: the record and its attempts as a timeline', TIMEOUT, async () => {
    const shown = await cli('show', failoverId);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^id\\s+${failoverId}$`, 'm'));
    assert.match(shown.stdout, /^end_user\s+carol$/m);
    assert.match(shown.stdout, /^status\s+200$/m);
    const rows = shown.stdout.split('\n').filter((line) => /^\d\s/.test(line));
    assert.equal(rows.length, 2, shown.stdout);
    assert.match(rows[0] as string, /^1\s+failing\s+503\s+[a-z_]+\s+[\d.]+ ms/);
    assert.match(rows[1] as string, /^2\s+good\s+200\s+-\s/);
    assert.match(rows[1] as string, /\[\s*=*\|?=*\s*\]$/);

    const refused = await cli('show', notFoundId);
    assert.match(refused.stdout, /Attempts: none/);
    const unknown = await cli('show', 'req_does_not_exist');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /not_found, HTTP 404/);
    const bad = await cli('--since', 'yesterday');
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--since must be a duration/);
  });
});
