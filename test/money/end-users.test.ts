import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { runCli } from '../support/gateway-process.js';
import { accountWithKey, AdminClient, ADMIN_KEY, openaiClient, type AccountWithKey } from '../support/money.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// Issue 32 item 3 (PRODUCT decision 27): the end user each door reads (x-switchyard-user
// wins, then chat/Responses `user` and `safety_identifier`, Anthropic `metadata.user_id`)
// is on the usage row; the usage API, the stats API and the CLI filter and group by it.

const yaml = `
admin_key: ${ADMIN_KEY}
limits: { key: { rpm: 100000 }, account: { rpm: 100000 }, ip: { rpm: 100000 } }
usage: { flush_interval_ms: 20 }
nodes: [{ id: sim, provider: simulated }]
models:
  - { id: paid, pricing: { input: 0.5, output: 2 }, routes: [{ node: sim }] }
`;

describe('end users on the usage rows', () => {
  let gateway: TestGateway;
  let admin: AdminClient;
  let key: AccountWithKey;

  before(async () => {
    gateway = await startTestGateway(yaml);
    admin = new AdminClient(gateway.baseUrl);
    key = await accountWithKey(admin, { balance: 10 });
    const openai = openaiClient(gateway.baseUrl, key.secret);
    const anthropic = new Anthropic({ baseURL: gateway.origin, apiKey: key.secret, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    // Chat: `user`, `safety_identifier`, and the header over both.
    await openai.chat.completions.create({ model: 'paid', max_tokens: 4, messages, user: 'chat-user' });
    await openai.chat.completions.create({ model: 'paid', max_tokens: 4, messages, safety_identifier: 'chat-safety' });
    await openai.chat.completions.create(
      { model: 'paid', max_tokens: 4, messages, user: 'ignored' },
      { headers: { 'x-switchyard-user': 'header-user' } },
    );
    // Responses: `user`, streamed.
    const stream = await openai.responses.create({ model: 'paid', input: 'hi', user: 'responses-user', stream: true });
    for await (const _event of stream) {
      // drained
    }
    // Messages: metadata.user_id, and the header over it.
    await anthropic.messages.create({ model: 'paid', max_tokens: 4, messages, metadata: { user_id: 'claude-user' } });
    await anthropic.messages.create(
      { model: 'paid', max_tokens: 4, messages, metadata: { user_id: 'ignored' } },
      { headers: { 'x-switchyard-user': 'header-user' } },
    );
    // None said.
    await openai.chat.completions.create({ model: 'paid', max_tokens: 4, messages });
    await waitFor(async () => (await admin.usage({ key: key.keyId, limit: '0' })).totals.requests === 7, 30_000);
  });
  after(() => gateway.close());

  test('each door books the end user it read; the header wins', async () => {
    const rows = (await admin.usage({ key: key.keyId })).data as Array<{ front_door: string; end_user: string | null }>;
    assert.deepEqual(
      rows.map((row) => `${row.front_door}:${row.end_user}`).sort(),
      [
        'chat:chat-safety',
        'chat:chat-user',
        'chat:header-user',
        'chat:null',
        'messages:claude-user',
        'messages:header-user',
        'responses:responses-user',
      ].sort(),
    );
  });

  test('the usage API filters by end user and totals per end user', async () => {
    const header = await admin.usage({ key: key.keyId, end_user: 'header-user' });
    assert.equal(header.totals.requests, 2);
    assert.deepEqual(new Set(header.data.map((row: { end_user: string }) => row.end_user)), new Set(['header-user']));
    const grouped = await admin.usage({ key: key.keyId, group_by: 'end_user', limit: '0' });
    assert.equal(grouped.data.length, 0);
    const byUser = new Map<string | null, { requests: number; cost_nano: number }>(
      grouped.end_users.map((group: { end_user: string | null; requests: number; cost_nano: number }) => [
        group.end_user,
        group,
      ]),
    );
    assert.equal(byUser.get('header-user')?.requests, 2);
    assert.equal(byUser.get(null)?.requests, 1, 'rows without an end user are one group');
    assert.equal(byUser.get('header-user')?.cost_nano, header.totals.cost_nano);
    const sum = [...byUser.values()].reduce((total, group) => total + group.cost_nano, 0);
    assert.equal(sum, grouped.totals.cost_nano, 'the groups add up to the total');
    const costs = grouped.end_users.map((group: { cost_nano: number }) => group.cost_nano);
    assert.deepEqual(
      costs,
      [...costs].sort((a, b) => b - a),
      'highest cost first',
    );
    const refused = await admin.call('GET', '/usage?group_by=model');
    assert.equal(refused.status, 400);
  });

  test('the stats API groups by end user', async () => {
    const stats = await admin.ok('GET', '/stats?range=hour&group_by=end_user');
    assert.equal(stats.group_by, 'end_user');
    const requests = new Map<string | null, number>();
    for (const bucket of stats.data as Array<{ group: string | null; requests: number }>) {
      requests.set(bucket.group, (requests.get(bucket.group) ?? 0) + bucket.requests);
    }
    assert.equal(requests.get('header-user'), 2);
    assert.equal(requests.get('responses-user'), 1);
  });

  test('the CLI filters by end user and prints the per-user totals', async () => {
    const env = { SWITCHYARD_CONFIG: '', SWITCHYARD_URL: gateway.origin, SWITCHYARD_ADMIN_KEY: ADMIN_KEY };
    const filtered = await runCli(['usage', '--key', key.keyId, '--end-user', 'claude-user', '--json'], env);
    assert.equal(filtered.code, 0, filtered.stderr);
    const report = JSON.parse(filtered.stdout) as { data: Array<{ end_user: string }>; totals: { requests: number } };
    assert.equal(report.totals.requests, 1);
    assert.equal(report.data[0]?.end_user, 'claude-user');
    const grouped = await runCli(['usage', '--key', key.keyId, '--group-by', 'end_user'], env);
    assert.equal(grouped.code, 0, grouped.stderr);
    assert.match(grouped.stdout, /Per end user \(highest cost first\):/);
    const table = grouped.stdout.slice(grouped.stdout.indexOf('Per end user'));
    assert.match(table, /\n\s*header-user\s+2\s/);
    assert.match(table, /\n\s*responses-user\s+1\s/);
  });
});
