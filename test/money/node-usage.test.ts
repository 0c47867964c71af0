import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  accountWithKey,
  ADMIN_KEY,
  AdminClient,
  expectedCostNano,
  openaiClient,
  PRICES,
  type Pricing,
} from '../support/money.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// A node's usage is booked only when its counts are counts. An OpenAI-compatible node that
// sends no usage, or counts that are strings, negative or fractional, is booked on the
// gateway's estimate (marked estimated), never at zero cost and never at NaN.

/** What the node puts in `usage`, chosen by the first word of the user's message. */
const USAGES: Record<string, unknown> = {
  good: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  none: undefined,
  strings: { prompt_tokens: '11', completion_tokens: '7', total_tokens: '18' },
  negative: { prompt_tokens: 11, completion_tokens: -700, total_tokens: -689 },
  fraction: { prompt_tokens: 11.5, completion_tokens: 7, total_tokens: 18.5 },
  details: {
    prompt_tokens: 11,
    completion_tokens: 7,
    total_tokens: 18,
    completion_tokens_details: { reasoning_tokens: 'all' },
  },
};
const ANSWER = 'The eastern switchyard is open until midnight tonight.';

function startNode(): Promise<Server> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const parsed = JSON.parse(body) as { stream?: boolean; messages: Array<{ content: string }> };
      const usage = USAGES[(parsed.messages.at(-1)?.content ?? '').split(' ')[0] as string];
      const base = { id: 'chatcmpl-usage', created: 1_700_000_000, model: 'node-model' };
      if (parsed.stream) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (fields: object) =>
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...fields })}\n\n`;
        response.write(
          chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: ANSWER }, finish_reason: null }] }),
        );
        response.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
        if (usage !== undefined) response.write(chunk({ choices: [], usage }));
        response.end('data: [DONE]\n\n');
        return;
      }
      const reply = {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
        usage,
      };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('usage a node reports that is not a count', () => {
  let node: Server;
  let gateway: TestGateway;
  let admin: AdminClient;
  before(async () => {
    node = await startNode();
    const pricing = PRICES.paid as Pricing;
    gateway = await startTestGateway(`listen: { host: 127.0.0.1, port: 0 }
admin_key: ${ADMIN_KEY}
nodes:
  - { id: raw, provider: openai, base_url: "http://127.0.0.1:${(node.address() as AddressInfo).port}/v1" }
models:
  - { id: paid, pricing: { input: ${pricing.input}, output: ${pricing.output} }, routes: [{ node: raw }] }
`);
    admin = new AdminClient(gateway.baseUrl);
  });
  after(async () => {
    await gateway?.close();
    node?.close();
  });

  test('JSON and streamed replies: counted usage is exact, anything else is an estimate with a real cost, shown to the client marked estimated', async () => {
    const { keyId, secret } = await accountWithKey(admin, { id: 'usage', balance: 5 });
    const client = openaiClient(gateway.baseUrl, secret);
    const requestIds = new Map<string, string>();
    /** The usage each client read: a JSON reply's, a stream's last usage chunk. */
    const streamedUsage = new Map<string, Record<string, unknown>>();
    for (const kind of Object.keys(USAGES)) {
      for (const stream of [false, true]) {
        const messages = [{ role: 'user' as const, content: `${kind} usage, please: is the switchyard open?` }];
        if (stream) {
          const { data, response } = await client.chat.completions
            .create({ model: 'paid', messages, stream: true })
            .withResponse();
          let text = '';
          let lastUsage: unknown;
          for await (const chunk of data) {
            text += chunk.choices[0]?.delta.content ?? '';
            if (chunk.usage) lastUsage = chunk.usage;
          }
          assert.equal(text, ANSWER);
          requestIds.set(`${kind}/stream`, response.headers.get('x-request-id') as string);
          streamedUsage.set(`${kind}/stream`, lastUsage as Record<string, unknown>);
        } else {
          const { data, response } = await client.chat.completions.create({ model: 'paid', messages }).withResponse();
          assert.equal(data.choices[0]?.message.content, ANSWER);
          requestIds.set(`${kind}/json`, response.headers.get('x-request-id') as string);
          streamedUsage.set(`${kind}/json`, data.usage as unknown as Record<string, unknown>);
        }
      }
    }
    const report = await admin.usage({ key: keyId });
    const rows = report.data as Array<Record<string, unknown>>;
    assert.equal(rows.length, requestIds.size);
    const byId = new Map(rows.map((row) => [row.request_id, row]));
    const logged = new Map(
      gateway
        .logs()
        .filter((line) => line.msg === 'request')
        .map((line) => [line.request_id, line]),
    );
    for (const [name, requestId] of requestIds) {
      const row = byId.get(requestId) as Record<string, unknown>;
      const line = logged.get(requestId) as Record<string, unknown>;
      assert.ok(row, `a usage row for ${name}`);
      assert.ok(
        Number.isSafeInteger(row.cost_nano) && (row.cost_nano as number) > 0,
        `${name}: a real cost, got ${String(row.cost_nano)}`,
      );
      if (name.startsWith('good/')) {
        assert.equal(row.estimated, false, name);
        assert.deepEqual([row.prompt_tokens, row.completion_tokens], [11, 7], name);
        assert.equal(row.cost_nano, expectedCostNano('paid', { prompt_tokens: 11, completion_tokens: 7 }), name);
        assert.equal(line.usage_estimated, undefined, name);
      } else {
        assert.equal(row.estimated, true, name);
        // The estimate: 4 characters a token, 3 tokens of framing per message.
        assert.equal(row.completion_tokens, Math.ceil(ANSWER.length / 4), name);
        assert.equal(line.usage_estimated, true, name);
      }
      assert.equal(
        (line.usage as { prompt_tokens: unknown }).prompt_tokens,
        row.prompt_tokens,
        `${name}: the log line has the booked tokens`,
      );
      const streamed = streamedUsage.get(name);
      // The last usage a client reads, in a JSON reply as in a stream, is the one booked.
      assert.deepEqual(
        [streamed?.prompt_tokens, streamed?.completion_tokens],
        [row.prompt_tokens, row.completion_tokens],
        `${name}: ${JSON.stringify(streamed)}`,
      );
      assert.equal(streamed?.estimated === true, row.estimated, name);
    }
    const totals = report.totals as { cost_nano: number };
    assert.equal(
      totals.cost_nano,
      rows.reduce((sum, row) => sum + (row.cost_nano as number), 0),
    );
    assert.equal(await admin.spentNano(keyId), totals.cost_nano, 'the key spent what the rows say');
  });
});
