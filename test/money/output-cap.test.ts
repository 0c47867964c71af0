import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { accountWithKey, ADMIN_KEY, AdminClient, chat } from '../support/money.js';
import { postChat } from '../support/post-chat.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// PRODUCT.md decision 20: the node is always sent the output cap the reservation was priced
// on, in its protocol's field, so an honest node cannot spend past a reservation; a node
// that reports more anyway is charged what it reports, with a warning and a metric.

/** USD per million tokens: prompts are free, so a reply costs exactly its completion tokens × 100 µUSD. */
const PRICING = '{ input: 0, output: 100 }';
const NANO_PER_OUTPUT_TOKEN = 100_000;
/** What the lying node reports, whatever cap it was sent. */
const LIE_TOKENS = 1000;

interface Received {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/**
 * One fake node server for the three protocols, told apart by path prefix: it records every
 * body it receives and answers with a short reply. A message starting with "overspend" gets
 * usage reporting LIE_TOKENS completion tokens (a node that ignores its cap).
 */
function startRecordingNode(received: Received[]): Promise<Server> {
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      const path = request.url ?? '';
      received.push({ path, body });
      const lie = JSON.stringify(body).includes('overspend');
      const completion = lie ? LIE_TOKENS : 5;
      response.setHeader('content-type', 'application/json');
      if (path.startsWith('/an/')) {
        response.end(
          JSON.stringify({
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'claude',
            stop_reason: 'end_turn',
            stop_sequence: null,
            content: [{ type: 'text', text: 'Open until midnight.' }],
            usage: { input_tokens: 9, output_tokens: completion },
          }),
        );
        return;
      }
      if (path.startsWith('/ge/')) {
        response.end(
          JSON.stringify({
            candidates: [
              { content: { role: 'model', parts: [{ text: 'Open until midnight.' }] }, finishReason: 'STOP', index: 0 },
            ],
            usageMetadata: { promptTokenCount: 9, candidatesTokenCount: completion, totalTokenCount: 9 + completion },
          }),
        );
        return;
      }
      const base = { id: 'chatcmpl-cap', created: 1_700_000_000, model: 'node-model' };
      const usage = { prompt_tokens: 9, completion_tokens: completion, total_tokens: 9 + completion };
      if (body.stream === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (fields: object) =>
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...fields })}\n\n`;
        response.write(
          chunk({
            choices: [{ index: 0, delta: { role: 'assistant', content: 'Open until midnight.' }, finish_reason: null }],
          }),
        );
        response.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
        response.write(chunk({ choices: [], usage }));
        response.end('data: [DONE]\n\n');
        return;
      }
      response.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [
            { index: 0, message: { role: 'assistant', content: 'Open until midnight.' }, finish_reason: 'stop' },
          ],
          usage,
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('the reserved output cap reaches every node', () => {
  const received: Received[] = [];
  let node: Server;
  let gateway: TestGateway;
  let admin: AdminClient;
  let secret: string;
  let keyId: string;

  before(async () => {
    node = await startRecordingNode(received);
    const origin = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
    gateway = await startTestGateway(`listen: { host: 127.0.0.1, port: 0 }
admin_key: ${ADMIN_KEY}
nodes:
  - { id: oa, provider: openai, base_url: "${origin}/oa" }
  - { id: oa-reasoning, provider: openai, base_url: "${origin}/oa2", max_tokens_field: max_completion_tokens }
  - { id: an, provider: anthropic, base_url: "${origin}/an", api_key: node-secret }
  - { id: ge, provider: gemini, base_url: "${origin}/ge", api_key: node-secret }
models:
  - { id: m-oa, max_output_tokens: 300, pricing: ${PRICING}, routes: [{ node: oa }] }
  - { id: m-oa-reasoning, max_output_tokens: 300, pricing: ${PRICING}, routes: [{ node: oa-reasoning }] }
  - { id: m-an, max_output_tokens: 300, pricing: ${PRICING}, routes: [{ node: an }] }
  - { id: m-ge, max_output_tokens: 300, pricing: ${PRICING}, routes: [{ node: ge }] }
  - { id: m-default, default_max_tokens: 120, max_output_tokens: 300, pricing: ${PRICING}, routes: [{ node: oa }] }
  - { id: m-free, max_output_tokens: 300, routes: [{ node: oa }] }
`);
    admin = new AdminClient(gateway.baseUrl);
    ({ keyId, secret } = await accountWithKey(admin, { id: 'cap', balance: 100 }));
  });
  after(async () => {
    await gateway?.close();
    node?.close();
  });

  /** Sends one request and returns the body the node received. */
  async function sentToNode(fields: Record<string, unknown>): Promise<Received> {
    const before = received.length;
    const answer = await chat(gateway.baseUrl, secret, fields);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(received.length, before + 1);
    return received[before] as Received;
  }

  test('without max_tokens each protocol gets the reserved cap in its own field; a larger client cap is clamped, a smaller one kept', async () => {
    for (const extra of [{}, { max_tokens: 5000 }, { max_completion_tokens: 5000 }]) {
      const label = JSON.stringify(extra);
      const oa = await sentToNode({ model: 'm-oa', ...extra });
      const field = 'max_completion_tokens' in extra ? 'max_completion_tokens' : 'max_tokens';
      assert.equal(oa.body[field], 300, `openai ${field} for ${label}`);
      assert.equal(
        oa.body[field === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens'],
        undefined,
        `openai: only the client's field, ${label}`,
      );
      assert.equal(
        (await sentToNode({ model: 'm-an', ...extra })).body.max_tokens,
        300,
        `anthropic max_tokens for ${label}`,
      );
      const gemini = await sentToNode({ model: 'm-ge', ...extra });
      assert.equal(
        (gemini.body.generationConfig as Record<string, unknown> | undefined)?.maxOutputTokens,
        300,
        `gemini maxOutputTokens for ${label}`,
      );
    }
    assert.equal((await sentToNode({ model: 'm-oa', max_tokens: 100 })).body.max_tokens, 100);
    assert.equal((await sentToNode({ model: 'm-an', max_completion_tokens: 100 })).body.max_tokens, 100);
    assert.equal(
      ((await sentToNode({ model: 'm-ge', max_tokens: 100 })).body.generationConfig as Record<string, unknown>)
        .maxOutputTokens,
      100,
    );
  });

  test('a node configured with max_tokens_field gets the cap there; default_max_tokens is the cap when the client names none; free models are capped too', async () => {
    const reasoning = await sentToNode({ model: 'm-oa-reasoning' });
    assert.equal(reasoning.body.max_completion_tokens, 300);
    assert.equal(reasoning.body.max_tokens, undefined);
    assert.equal(
      (await sentToNode({ model: 'm-oa-reasoning', max_tokens: 50 })).body.max_tokens,
      50,
      "the client's own field wins",
    );
    assert.equal((await sentToNode({ model: 'm-default' })).body.max_tokens, 120);
    assert.equal((await sentToNode({ model: 'm-default', max_tokens: 1000 })).body.max_tokens, 300);
    assert.equal((await sentToNode({ model: 'm-free', max_tokens: 1000 })).body.max_tokens, 300);
  });

  test('a node reporting more output than its cap is charged what it reports, with a warning naming it and a metric', async () => {
    const liar = await accountWithKey(admin, { id: 'liar', balance: 100 });
    const json = await chat(gateway.baseUrl, liar.secret, {
      model: 'm-oa',
      messages: [{ role: 'user', content: 'overspend, please' }],
    });
    assert.equal(json.status, 200);
    assert.equal(json.body.usage.completion_tokens, LIE_TOKENS);
    const streamed = await postChat(gateway.baseUrl, liar.secret, {
      model: 'm-oa',
      stream: true,
      messages: [{ role: 'user', content: 'overspend in a stream' }],
    });
    assert.match(await streamed.text(), /"completion_tokens":1000/);
    // Charged what the node reported: 1000 tokens each, past the 300 reserved.
    await waitFor(() => gateway.logs().filter((line) => line.msg === 'request' && line.status === 200).length >= 2);
    assert.equal(await admin.spentNano(liar.keyId), 2 * LIE_TOKENS * NANO_PER_OUTPUT_TOKEN);
    const warnings = gateway
      .logs()
      .filter((line) => line.level === 40 && String(line.msg).includes('more output tokens than the cap'));
    assert.equal(warnings.length, 2, JSON.stringify(warnings));
    for (const warning of warnings) {
      assert.equal(warning.node, 'oa');
      assert.equal(warning.model, 'm-oa');
      assert.equal(warning.output_cap, 300);
      assert.equal(warning.completion_tokens, LIE_TOKENS);
      assert.doesNotMatch(JSON.stringify(warning), /node-secret|sk-/, 'no secrets in the warning');
    }
    const metrics = await (
      await fetch(`${admin.origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    ).text();
    assert.match(metrics, /switchyard_node_output_over_cap_total\{node="oa"\} 2\b/);
    // Honest replies left no warning: the key of the other tests was charged only what it reserved at most.
    assert.ok((await admin.spentNano(keyId)) > 0);
  });
});

describe('a key spending to its limit against the simulated node', () => {
  let gateway: TestGateway;
  let admin: AdminClient;

  before(async () => {
    gateway = await startTestGateway(`listen: { host: 127.0.0.1, port: 0 }
admin_key: ${ADMIN_KEY}
nodes:
  - { id: sim, provider: simulated }
models:
  - { id: capped, max_output_tokens: 8, pricing: ${PRICING}, routes: [{ node: sim, model: sim-model }] }
  - { id: uncapped, routes: [{ node: sim, model: sim-model }] }
`);
    admin = new AdminClient(gateway.baseUrl);
  });
  after(async () => {
    await gateway?.close();
  });

  test('sequential requests without max_tokens never spend past the spend limit', async () => {
    const messages = [{ role: 'user', content: 'Describe the switchyard at night.' }];
    // The simulated node's answer to this prompt when nothing caps it (12 to 48 tokens).
    const { secret: probeSecret } = await accountWithKey(admin, { id: 'probe', balance: 100 });
    const probe = await chat(gateway.baseUrl, probeSecret, { model: 'uncapped', messages });
    const answerTokens = probe.body.usage.completion_tokens as number;
    assert.ok(answerTokens > 9, `the answer (${answerTokens} tokens) is longer than the cap`);
    // Room for three whole answers and 9 tokens more: enough to pass the 8-token reservation
    // once more, not enough for a whole answer.
    const limitNano = (3 * answerTokens + 9) * NANO_PER_OUTPUT_TOKEN;
    const { keyId, secret } = await accountWithKey(
      admin,
      { id: 'limited', balance: 100 },
      { spend_limit: limitNano / 1e9 },
    );
    let refused = false;
    const replies: Array<{ completion: number; finish: string }> = [];
    for (let index = 0; index < 100 && !refused; index++) {
      const answer = await chat(gateway.baseUrl, secret, { model: 'capped', messages });
      if (answer.status === 402) {
        assert.equal(answer.body.error.code, 'api_key_limit_exceeded');
        refused = true;
        continue;
      }
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      replies.push({ completion: answer.body.usage.completion_tokens, finish: answer.body.choices[0].finish_reason });
    }
    assert.ok(refused, 'the key ran out');
    const spent = await admin.spentNano(keyId);
    assert.ok(
      spent <= limitNano,
      `spent ${spent} nano-USD of a ${limitNano} limit (${Math.round((spent / limitNano) * 100)} %)`,
    );
    assert.ok(spent > limitNano - 8 * NANO_PER_OUTPUT_TOKEN, 'spent down to less than one reservation');
    assert.deepEqual(
      new Set(replies.map((reply) => `${reply.completion} ${reply.finish}`)),
      new Set(['8 length']),
      'every reply stopped at the cap of 8',
    );
  });
});
