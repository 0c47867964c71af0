import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { admin } from '../support/admin-client.js';
import { chatBody, postChat } from '../support/post-chat.js';
import { readSse } from '../support/sse.js';
import { startSimulator, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// Request and reply bodies are kept in the request record only where `request_log.bodies`
// is on (a model, an account, a key: in the file or through the admin API), cut to
// `request_log.max_body_bytes`, with secrets redacted.

const ADMIN_KEY = 'admin-key-request-bodies-0123456789';
const PLAIN_KEY = 'sk-bodies-plain-0123456789abcdef';
const BODIES_KEY = 'sk-bodies-kept-0123456789abcdefgh';
const NODE_KEY = 'node-secret-7f3a9c1e5b2d4f60';
const TIMEOUT = { timeout: 20_000 };

interface Kept {
  status: number;
  request_body: string | null;
  reply_body: string | null;
}

describe('request and reply bodies in the request record', () => {
  let node: SimulatedNode;
  let gateway: TestGateway;

  const kept = async (response: Response): Promise<Kept> => {
    const id = response.headers.get('x-request-id') as string;
    let found: Kept | undefined;
    await waitFor(
      async () => {
        const answer = await admin(gateway.origin, 'GET', `/requests/${id}`, ADMIN_KEY);
        if (answer.status === 200) found = answer.body as Kept;
        return found !== undefined;
      },
      5000,
      { what: `the record of ${id}` },
    );
    return found as Kept;
  };

  before(async () => {
    node = await startSimulator();
    gateway = await startTestGateway(
      `
admin_key: ${ADMIN_KEY}
request_log: { flush_interval_ms: 50, max_body_bytes: 1024 }
nodes:
  - { id: n1, provider: openai, base_url: "${node.baseUrl}", api_key: "\${NODE_KEY}" }
models:
  - { id: plain, routes: [{ node: n1 }] }
  - { id: logged, request_log: { bodies: true }, routes: [{ node: n1 }] }
accounts:
  - { id: quiet }
keys:
  - { key: ${PLAIN_KEY}, account: quiet }
  - { key: ${BODIES_KEY}, account: quiet, request_log: { bodies: true } }
`,
      { NODE_KEY },
    );
  });

  after(async () => {
    await gateway?.close();
    await node?.close();
  });

  test('nothing is kept where no model, account or key asks', TIMEOUT, async () => {
    const response = await postChat(gateway.baseUrl, PLAIN_KEY, chatBody('plain', { max_tokens: 4 }));
    assert.equal(response.status, 200);
    await response.json();
    const record = await kept(response);
    assert.equal(record.request_body, null);
    assert.equal(record.reply_body, null);
  });

  test(
    'a model with bodies on keeps both, with API keys, the node key and Authorization values redacted',
    TIMEOUT,
    async () => {
      const secretText = `my key is sk-proj-abcdefghijklmnop1234 and ${PLAIN_KEY}; node ${NODE_KEY}; Authorization: Bearer abcdefghijklmnopqrstuvwxyz`;
      const body = chatBody('logged', {
        max_tokens: 4,
        messages: [{ role: 'user', content: secretText }],
        metadata: { authorization: 'Basic dXNlcjpwYXNzd29yZA==', 'x-api-key': 'anthropic-key-0123456789' },
      });
      const response = await postChat(gateway.baseUrl, PLAIN_KEY, body);
      assert.equal(response.status, 200);
      const reply = (await response.json()) as { choices: Array<{ message: { content: string } }> };
      const record = await kept(response);
      const requestBody = record.request_body ?? '';
      for (const secret of [
        'sk-proj-abcdefghijklmnop1234',
        PLAIN_KEY,
        NODE_KEY,
        'abcdefghijklmnopqrstuvwxyz',
        'dXNlcjpwYXNzd29yZA==',
        'anthropic-key-0123456789',
      ]) {
        assert.ok(!requestBody.includes(secret), `${secret} is redacted from ${requestBody}`);
      }
      assert.ok(requestBody.includes('[redacted]'));
      assert.ok(requestBody.includes('"model":"logged"'), 'the rest of the body is there');
      assert.ok(
        (record.reply_body ?? '').includes(JSON.stringify(reply.choices[0]?.message.content).slice(1, -1)),
        'the reply as the client got it',
      );
    },
  );

  test('a key with bodies on keeps a stream as its events, cut to max_body_bytes', TIMEOUT, async () => {
    const response = await postChat(
      gateway.baseUrl,
      BODIES_KEY,
      chatBody('plain', { stream: true, max_tokens: 300, messages: [{ role: 'user', content: 'x'.repeat(3000) }] }),
    );
    assert.equal(response.status, 200);
    await readSse(response);
    const record = await kept(response);
    const replyBody = record.reply_body ?? '';
    assert.ok(replyBody.startsWith('data: {'), `events as sent: ${replyBody.slice(0, 80)}`);
    assert.ok(Buffer.byteLength(replyBody) <= 1024 + 40, `cut near 1 KiB, got ${Buffer.byteLength(replyBody)}`);
    assert.match(replyBody, /…\[cut at 1024 bytes\]$/);
    assert.match(record.request_body ?? '', /…\[cut at 1024 bytes\]$/);
  });

  test('a short stream is kept whole, to its closing data: [DONE]', TIMEOUT, async () => {
    const response = await postChat(gateway.baseUrl, BODIES_KEY, chatBody('plain', { stream: true, max_tokens: 1 }));
    assert.equal(response.status, 200);
    const sent = await response.text();
    const record = await kept(response);
    assert.ok(sent.endsWith('data: [DONE]\n\n'), sent.slice(-80));
    assert.equal(record.reply_body, sent);
  });

  test(
    'an account switched on through the admin API keeps bodies from then on, off again when cleared',
    TIMEOUT,
    async () => {
      const on = await admin(gateway.origin, 'PATCH', '/accounts/quiet', ADMIN_KEY, { request_log: { bodies: true } });
      assert.equal(on.status, 200, JSON.stringify(on.body));
      assert.deepEqual((on.body as { request_log: unknown }).request_log, { bodies: true });
      const response = await postChat(gateway.baseUrl, PLAIN_KEY, chatBody('plain', { max_tokens: 3 }));
      await response.json();
      assert.ok((await kept(response)).request_body?.includes('"model":"plain"'));
      const off = await admin(gateway.origin, 'PATCH', '/accounts/quiet', ADMIN_KEY, { request_log: null });
      assert.equal(off.status, 200);
      const again = await postChat(gateway.baseUrl, PLAIN_KEY, chatBody('plain', { max_tokens: 3 }));
      await again.json();
      assert.equal((await kept(again)).request_body, null);
    },
  );
});
