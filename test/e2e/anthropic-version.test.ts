import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { SimulatedNode } from '../../src/simulator/simulated-node.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 31 item 6: nodes speak the Anthropic API version they are set to (anthropic_version);
// on 2026-10-21 they get no sampling fields, and what that version refuses is a 400 naming
// its param before any node is tried. Clients on either version work through every door.

const KEY = 'sk-e2e-anthropic-version-0123';
const NODE_KEY = 'sk-ant-node-version-0123';
const TIMEOUT = { timeout: 20_000 };
const SAMPLING = { temperature: 0.5, top_p: 0.9, top_k: 40 };

interface SeenRequest {
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

describe('Anthropic API version per node', () => {
  let gateway: TestGateway;
  let strictNode: SimulatedNode;
  let oldNode: SimulatedNode;
  let openaiNode: SimulatedNode;

  before(async () => {
    strictNode = new SimulatedNode({ protocol: 'anthropic', apiKey: NODE_KEY });
    oldNode = new SimulatedNode({ protocol: 'anthropic', apiKey: NODE_KEY });
    openaiNode = new SimulatedNode({ protocol: 'openai' });
    await Promise.all([strictNode.listen(0), oldNode.listen(0), openaiNode.listen(0)]);
    gateway = await startTestGateway(`
nodes:
  - { id: strict, provider: anthropic, base_url: "${strictNode.baseUrl}", api_key: ${NODE_KEY}, anthropic_version: 2026-10-21 }
  - { id: old, provider: anthropic, base_url: "${oldNode.baseUrl}", api_key: ${NODE_KEY} }
  - { id: oai, provider: openai, base_url: "${openaiNode.baseUrl}" }
models:
  - { id: on-strict, routes: [{ node: strict, model: claude-sonnet-4-6 }] }
  - { id: on-old, routes: [{ node: old, model: claude-sonnet-4-6 }] }
  # Tried in this order: an old node first, a strict one after it, then a translated one.
  - id: mixed
    routes: [{ node: old, model: claude-sonnet-4-6 }, { node: strict, model: claude-sonnet-4-6, priority: 1 }]
  - { id: strict-or-translated, routes: [{ node: strict, model: claude-sonnet-4-6 }, { node: oai, priority: 1 }] }
keys:
  - { key: ${KEY} }
`);
  });
  after(async () => {
    await gateway?.close();
    await Promise.all([strictNode?.close(), oldNode?.close(), openaiNode?.close()]);
  });

  const seen = (node: SimulatedNode): SeenRequest => {
    const last = node.stats().lastRequest;
    assert.ok(last !== undefined, 'the node was called');
    return { headers: last.headers, body: last.body as Record<string, unknown> };
  };
  const messages = (body: Record<string, unknown>, version = '2023-06-01') =>
    fetch(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': version },
      body: JSON.stringify({ max_tokens: 200, ...body }),
      signal: AbortSignal.timeout(10_000),
    });
  const hello = [{ role: 'user', content: 'Hello' }];

  test(
    'the official @anthropic-ai/sdk sends 2026-10-21; a node is sent its own version, natively',
    TIMEOUT,
    async () => {
      const client = new Anthropic({ apiKey: KEY, baseURL: gateway.origin, maxRetries: 0 });
      for (const [model, node, version] of [
        ['on-strict', strictNode, '2026-10-21'],
        ['on-old', oldNode, '2023-06-01'],
      ] as const) {
        node.resetStats();
        const { data: message, response } = await client.messages
          .create({ model, max_tokens: 200, messages: [{ role: 'user', content: 'Hello' }] })
          .withResponse();
        assert.equal(message.model, model);
        assert.equal(response.status, 200);
        assert.equal(seen(node).headers['anthropic-version'], version, model);
        const final = await client.messages
          .stream({ model, max_tokens: 200, messages: [{ role: 'user', content: 'Hello' }] })
          .finalMessage();
        assert.equal(final.stop_reason, 'end_turn');
        assert.equal(seen(node).headers['anthropic-version'], version, model);
      }
    },
  );

  test(
    'Messages natively, either client version: a 2026-10-21 node gets no temperature, top_p, top_k; an old node gets them',
    TIMEOUT,
    async () => {
      for (const clientVersion of ['2023-06-01', '2026-10-21']) {
        const strict = await messages({ model: 'on-strict', messages: hello, ...SAMPLING }, clientVersion);
        assert.equal(strict.status, 200, await strict.clone().text());
        const toStrict = seen(strictNode).body;
        for (const field of Object.keys(SAMPLING)) assert.equal(field in toStrict, false, `${field} left out`);

        const old = await messages({ model: 'on-old', messages: hello, ...SAMPLING }, clientVersion);
        assert.equal(old.status, 200, await old.clone().text());
        assert.equal(seen(oldNode).headers['anthropic-version'], '2023-06-01');
        assert.deepEqual(
          Object.fromEntries(Object.keys(SAMPLING).map((field) => [field, seen(oldNode).body[field]])),
          SAMPLING,
        );
      }
    },
  );

  test('Chat Completions and Responses, translated: a 2026-10-21 node gets no sampling fields', TIMEOUT, async () => {
    const client = new OpenAI({ apiKey: KEY, baseURL: gateway.baseUrl, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'on-strict',
      messages: [{ role: 'user', content: 'Hello' }],
      temperature: 0.3,
      top_p: 0.8,
    });
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
    assert.equal(seen(strictNode).headers['anthropic-version'], '2026-10-21');
    assert.equal('temperature' in seen(strictNode).body, false);
    assert.equal('top_p' in seen(strictNode).body, false);

    await client.chat.completions.create({
      model: 'on-old',
      messages: [{ role: 'user', content: 'Hello' }],
      temperature: 0.3,
      top_p: 0.8,
    });
    assert.equal(seen(oldNode).body.temperature, 0.3);
    assert.equal(seen(oldNode).body.top_p, 0.8);

    const response = await client.responses.create({
      model: 'on-strict',
      input: 'Hello',
      temperature: 0.3,
      top_p: 0.8,
    });
    assert.equal(response.status, 'completed');
    assert.equal('temperature' in seen(strictNode).body, false);
    assert.equal('top_p' in seen(strictNode).body, false);
  });

  const assistantDocument = [
    { role: 'user', content: 'Write me a note.' },
    {
      role: 'assistant',
      content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'A note.' } }],
    },
    { role: 'user', content: 'Thanks' },
  ];
  const userCitations = [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Context' },
        {
          type: 'text',
          text: 'The yard is open.',
          citations: [
            { type: 'char_location', cited_text: 'open', document_index: 0, start_char_index: 0, end_char_index: 4 },
          ],
        },
      ],
    },
  ];

  test(
    'what 2026-10-21 refuses is a 400 naming its param before any node is tried, when a node of the model would get it natively on that version',
    TIMEOUT,
    async () => {
      const client = new Anthropic({ apiKey: KEY, baseURL: gateway.origin, maxRetries: 0 });
      for (const model of ['on-strict', 'mixed', 'strict-or-translated']) {
        strictNode.resetStats();
        oldNode.resetStats();
        openaiNode.resetStats();
        const document = await messages({ model, messages: assistantDocument });
        assert.equal(document.status, 400, model);
        const body = (await document.json()) as { type: string; error: { type: string; message: string } };
        assert.equal(body.type, 'error');
        assert.equal(body.error.type, 'invalid_request_error');
        assert.match(body.error.message, /messages\[1\]\.content\[0\]\.type/);
        assert.match(body.error.message, /2026-10-21/);

        await assert.rejects(
          client.messages.create({
            model,
            max_tokens: 200,
            messages: userCitations as Anthropic.MessageParam[],
          }),
          (error) => error instanceof BadRequestError && /messages\[0\]\.content\[1\]\.citations/.test(error.message),
        );
        for (const node of [strictNode, oldNode, openaiNode]) assert.equal(node.stats().requests, 0, 'no node tried');
      }
    },
  );

  test(
    'user text citations pass to a model whose Anthropic nodes are on 2023-06-01 (which takes them)',
    TIMEOUT,
    async () => {
      // (An assistant document block is refused for every model today, whatever the version:
      // the door's chat form has no place for it.)
      oldNode.resetStats();
      const citations = await messages({ model: 'on-old', messages: userCitations });
      assert.equal(citations.status, 200, await citations.clone().text());
      assert.equal(oldNode.stats().requests, 1);
      const sent = seen(oldNode).body.messages as Array<{ content: Array<Record<string, unknown>> }>;
      assert.equal((sent[0]?.content[1]?.citations as unknown[]).length, 1, 'the citations reach the node');
    },
  );

  test(
    'the simulated node itself refuses sampling fields on 2026-10-21, as Anthropic does (so the tests above could fail)',
    TIMEOUT,
    async () => {
      const direct = await fetch(`${strictNode.baseUrl}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': NODE_KEY, 'anthropic-version': '2026-10-21' },
        body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: hello, temperature: 1 }),
      });
      assert.equal(direct.status, 400);
      assert.match(await direct.text(), /temperature/);
    },
  );
});
