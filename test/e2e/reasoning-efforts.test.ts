import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SimulatedNode, type SimulatedNodeOptions } from '../../src/simulator/simulated-node.js';
import { ADMIN_KEY, AdminClient, accountWithKey, chat } from '../support/money.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// PRODUCT.md decisions 19 and 20 (issue 18 items 4 and 5): the 2026 reasoning values where a
// model lists them (400 elsewhere), an effort that reaches an Anthropic node as a larger
// budget without a client cap, the reservation priced on the cap sent, and
// `reasoning.exclude` (no reasoning text in the reply, still billed). docs/reasoning.md.

const TIMEOUT = { timeout: 30_000 };
const NODE_KEY = 'node-secret-key';
/** USD per million tokens: prompts free, so a reservation is exactly its output cap × 100 µUSD. */
const PRICING = '{ input: 0, output: 100 }';
const NANO_PER_OUTPUT_TOKEN = 100_000;

async function start(options: SimulatedNodeOptions): Promise<SimulatedNode> {
  const node = new SimulatedNode(options);
  await node.listen(0);
  return node;
}

function lastBody(node: SimulatedNode): Record<string, unknown> {
  const body = node.stats().lastRequest?.body;
  assert.ok(body !== null && typeof body === 'object', 'the node received a JSON body');
  return body as Record<string, unknown>;
}

/** An Anthropic node that records each body and answers only when `release` is called. */
function startHoldingNode(): Promise<{ server: Server; bodies: Array<Record<string, unknown>>; release: () => void }> {
  const bodies: Array<Record<string, unknown>> = [];
  const waiting: Array<() => void> = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      bodies.push(JSON.parse(text) as Record<string, unknown>);
      waiting.push(() => {
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            id: 'msg_held',
            type: 'message',
            role: 'assistant',
            model: 'claude',
            stop_reason: 'end_turn',
            stop_sequence: null,
            content: [{ type: 'text', text: 'Open until midnight.' }],
            usage: { input_tokens: 9, output_tokens: 5 },
          }),
        );
      });
    });
  });
  const release = () => {
    for (const answer of waiting.splice(0)) answer();
  };
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, bodies, release })));
}

describe('reasoning efforts of 2026, thinking budgets and reasoning.exclude through the gateway', () => {
  let claude: SimulatedNode;
  let gemini: SimulatedNode;
  let held: Awaited<ReturnType<typeof startHoldingNode>>;
  let gateway: TestGateway;
  let admin: AdminClient;
  let secret: string;
  let accountId: string;

  before(async () => {
    claude = await start({ protocol: 'anthropic', apiKey: NODE_KEY });
    gemini = await start({ protocol: 'gemini', apiKey: NODE_KEY });
    held = await startHoldingNode();
    const heldUrl = `http://127.0.0.1:${(held.server.address() as AddressInfo).port}/v1`;
    gateway = await startTestGateway(`listen: { host: 127.0.0.1, port: 0 }
admin_key: ${ADMIN_KEY}
nodes:
  - { id: sim, provider: simulated }
  - { id: claude, provider: anthropic, base_url: "${claude.baseUrl}", api_key: ${NODE_KEY} }
  - { id: gem, provider: gemini, base_url: "${gemini.baseUrl}", api_key: ${NODE_KEY} }
  - { id: held, provider: anthropic, base_url: "${heldUrl}", api_key: ${NODE_KEY} }
models:
  - id: deep
    reasoning: { default_effort: medium, efforts: [none, minimal, xhigh, max] }
    routes: [{ node: sim }]
  - { id: deep-max, reasoning: { default_effort: max, efforts: [max] }, routes: [{ node: sim }] }
  - { id: three-efforts, reasoning: { default_effort: medium }, routes: [{ node: sim }] }
  - { id: no-reasoning, routes: [{ node: sim }] }
  - id: claude-budget
    context_length: 200000
    pricing: ${PRICING}
    reasoning: { default_effort: medium, efforts: [none, xhigh, max] }
    routes: [{ node: claude, model: claude-sonnet-4-5 }]
  - id: claude-short-answers
    context_length: 200000
    reasoning: { default_effort: medium, answer_tokens: 1000 }
    routes: [{ node: claude, model: claude-sonnet-4-5 }]
  - id: claude-level
    reasoning: { default_effort: medium, style: level, efforts: [none, minimal, max] }
    routes: [{ node: claude, model: claude-opus-4-7 }]
  - id: claude-held
    context_length: 200000
    pricing: ${PRICING}
    reasoning: { default_effort: medium }
    routes: [{ node: held, model: claude-sonnet-4-5 }]
  - id: gemini-budget
    reasoning: { default_effort: medium, efforts: [none, max] }
    routes: [{ node: gem, model: gemini-2.5-flash }]
  - id: gemini-level
    reasoning: { default_effort: medium, style: level, efforts: [none, max] }
    routes: [{ node: gem, model: gemini-3-flash }]
`);
    admin = new AdminClient(gateway.baseUrl);
    ({ secret, accountId } = await accountWithKey(admin, { id: 'reasoning', balance: 100 }));
  });

  after(async () => {
    held?.release();
    await gateway?.close();
    await claude?.close();
    await gemini?.close();
    await new Promise((resolve) => held?.server.close(resolve));
  });

  test(
    'max on a model that lists it is answered with reasoning; on a model that does not, 400 naming the parameter',
    TIMEOUT,
    async () => {
      const answer = await chat(gateway.baseUrl, secret, { model: 'deep', reasoning_effort: 'max' });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.ok(answer.body.choices[0].message.reasoning_content.length > 0);
      assert.equal(
        answer.body.usage.completion_tokens_details.reasoning_tokens,
        512,
        "the simulator's reasoning for max",
      );
      const none = await chat(gateway.baseUrl, secret, { model: 'deep', reasoning: { effort: 'none' } });
      assert.equal(none.status, 200, JSON.stringify(none.body));
      assert.equal(none.body.usage.completion_tokens_details.reasoning_tokens, 0, 'none: no reasoning');

      for (const [model, fields, param] of [
        ['three-efforts', { reasoning_effort: 'max' }, 'reasoning_effort'],
        ['three-efforts', { reasoning: { effort: 'xhigh' } }, 'reasoning.effort'],
        ['three-efforts', { reasoning_effort: 'none' }, 'reasoning_effort'],
        ['no-reasoning', { reasoning_effort: 'minimal' }, 'reasoning_effort'],
      ] as const) {
        const refused = await chat(gateway.baseUrl, secret, { model, ...fields });
        assert.equal(refused.status, 400, `${model} ${JSON.stringify(fields)}`);
        assert.equal(refused.body.error.code, 'validation_failed');
        assert.equal(refused.body.error.param, param);
        assert.match(refused.body.error.message, new RegExp(`"${model}"`));
      }
      const unknown = await chat(gateway.baseUrl, secret, { model: 'deep', reasoning_effort: 'ultra' });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.param, 'reasoning_effort', 'a word outside the seven stays 400 everywhere');
      const dropped = await chat(gateway.baseUrl, secret, { model: 'no-reasoning', reasoning_effort: 'high' });
      assert.equal(dropped.status, 200, 'low/medium/high on a model without reasoning are still dropped');
    },
  );

  test(
    'Anthropic without max_tokens: low < medium < high budgets reach the node, each with room for an answer',
    TIMEOUT,
    async () => {
      const sent: Array<{ max_tokens: unknown; thinking: unknown }> = [];
      for (const effort of ['low', 'medium', 'high', 'xhigh', 'max']) {
        const answer = await chat(gateway.baseUrl, secret, { model: 'claude-budget', reasoning_effort: effort });
        assert.equal(answer.status, 200, `${effort}: ${JSON.stringify(answer.body)}`);
        const body = lastBody(claude);
        sent.push({ max_tokens: body.max_tokens, thinking: body.thinking });
      }
      assert.deepEqual(sent, [
        { max_tokens: 1024 + 4096, thinking: { type: 'enabled', budget_tokens: 1024 } },
        { max_tokens: 8192 + 4096, thinking: { type: 'enabled', budget_tokens: 8192 } },
        { max_tokens: 24576 + 4096, thinking: { type: 'enabled', budget_tokens: 24576 } },
        { max_tokens: 32768 + 4096, thinking: { type: 'enabled', budget_tokens: 32768 } },
        { max_tokens: 65536 + 4096, thinking: { type: 'enabled', budget_tokens: 65536 } },
      ]);
      const none = await chat(gateway.baseUrl, secret, {
        model: 'claude-budget',
        reasoning_effort: 'none',
        temperature: 0.3,
      });
      assert.equal(none.status, 200, JSON.stringify(none.body));
      assert.equal(lastBody(claude).thinking, undefined, 'none: thinking off');
      assert.equal(lastBody(claude).temperature, 0.3, 'so sampling fields go through');
      const budget = await chat(gateway.baseUrl, secret, {
        model: 'claude-budget',
        reasoning_effort: 'low',
        reasoning: { max_tokens: 3000 },
      });
      assert.equal(budget.status, 200, JSON.stringify(budget.body));
      assert.deepEqual(
        lastBody(claude).thinking,
        { type: 'enabled', budget_tokens: 3000 },
        'reasoning.max_tokens wins over the effort',
      );
      assert.equal(lastBody(claude).max_tokens, 3000 + 4096);
      const capped = await chat(gateway.baseUrl, secret, {
        model: 'claude-budget',
        reasoning_effort: 'high',
        max_tokens: 2000,
      });
      assert.equal(capped.status, 200);
      assert.deepEqual(
        lastBody(claude).thinking,
        { type: 'enabled', budget_tokens: 1999 },
        "the client's cap is kept, the budget under it",
      );
    },
  );

  test(
    'reasoning.answer_tokens sizes the answer on top of the budget; a ceiling of max_reasoning_effort ranks the new values',
    TIMEOUT,
    async () => {
      assert.equal(
        (await chat(gateway.baseUrl, secret, { model: 'claude-short-answers', reasoning_effort: 'high' })).status,
        200,
      );
      assert.equal(lastBody(claude).max_tokens, 24576 + 1000);
      const limited = await accountWithKey(
        admin,
        { id: 'ceiling', balance: 100 },
        { policy: { max_reasoning_effort: 'high' } },
      );
      const above = await chat(gateway.baseUrl, limited.secret, { model: 'deep', reasoning_effort: 'xhigh' });
      assert.equal(above.status, 403, JSON.stringify(above.body));
      assert.equal(above.body.error.param, 'reasoning_effort');
      assert.equal(
        (await chat(gateway.baseUrl, limited.secret, { model: 'deep', reasoning_effort: 'none' })).status,
        200,
        'none is below high',
      );
      const xhighCeiling = await accountWithKey(
        admin,
        { id: 'xhigh-ceiling', balance: 100 },
        { policy: { max_reasoning_effort: 'xhigh' } },
      );
      const lowered = await chat(gateway.baseUrl, xhighCeiling.secret, { model: 'deep-max' });
      assert.equal(lowered.status, 200, JSON.stringify(lowered.body));
      assert.equal(
        lowered.body.usage.completion_tokens_details.reasoning_tokens,
        128,
        'a default max under an xhigh ceiling: high, the highest effort this model takes under it',
      );
    },
  );

  test(
    'level-style Anthropic: output_config.effort per effort, minimal as low, none without thinking',
    TIMEOUT,
    async () => {
      for (const [effort, expected] of [
        ['max', 'max'],
        ['minimal', 'low'],
        ['high', 'high'],
      ] as const) {
        const answer = await chat(gateway.baseUrl, secret, { model: 'claude-level', reasoning_effort: effort });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(lastBody(claude).thinking, { type: 'adaptive' });
        assert.deepEqual(lastBody(claude).output_config, { effort: expected }, effort);
      }
      const none = await chat(gateway.baseUrl, secret, { model: 'claude-level', reasoning_effort: 'none' });
      assert.equal(none.status, 200);
      assert.equal(lastBody(claude).thinking, undefined);
      assert.equal(lastBody(claude).output_config, undefined);
    },
  );

  test('Gemini: a budget or a level per effort, none off where the model allows', TIMEOUT, async () => {
    const thinkingOf = () => (lastBody(gemini).generationConfig as Record<string, unknown>).thinkingConfig;
    assert.equal(
      (await chat(gateway.baseUrl, secret, { model: 'gemini-budget', reasoning_effort: 'max' })).status,
      200,
    );
    assert.deepEqual(thinkingOf(), { thinkingBudget: 65536, includeThoughts: true });
    assert.equal(
      (await chat(gateway.baseUrl, secret, { model: 'gemini-budget', reasoning_effort: 'none' })).status,
      200,
    );
    assert.deepEqual(thinkingOf(), { thinkingBudget: 0, includeThoughts: false });
    assert.equal(
      (await chat(gateway.baseUrl, secret, { model: 'gemini-budget', reasoning: { max_tokens: 2048 } })).status,
      200,
    );
    assert.deepEqual(thinkingOf(), { thinkingBudget: 2048, includeThoughts: true });
    assert.equal((await chat(gateway.baseUrl, secret, { model: 'gemini-level', reasoning_effort: 'max' })).status, 200);
    assert.deepEqual(thinkingOf(), { thinkingLevel: 'HIGH', includeThoughts: true });
    assert.equal(
      (await chat(gateway.baseUrl, secret, { model: 'gemini-level', reasoning_effort: 'none' })).status,
      200,
    );
    assert.deepEqual(thinkingOf(), { thinkingLevel: 'MINIMAL', includeThoughts: false });
  });

  test('the reservation is priced on the cap the node is sent', TIMEOUT, async () => {
    for (const [effort, cap] of [
      ['low', 1024 + 4096],
      ['high', 24576 + 4096],
    ] as const) {
      const pending = chat(gateway.baseUrl, secret, { model: 'claude-held', reasoning_effort: effort });
      const before = held.bodies.length;
      await waitFor(() => held.bodies.length > before, 5000);
      assert.equal(held.bodies.at(-1)?.max_tokens, cap, `${effort}: the cap sent`);
      const account = await admin.ok('GET', `/accounts/${accountId}`);
      assert.equal(
        Math.round(account.reserved * 1e9),
        cap * NANO_PER_OUTPUT_TOKEN,
        `${effort}: reserved while in flight`,
      );
      held.release();
      assert.equal((await pending).status, 200);
    }
  });

  test(
    'reasoning.exclude: no reasoning text in JSON or stream replies, reasoning tokens still in usage',
    TIMEOUT,
    async () => {
      for (const model of ['deep', 'claude-budget', 'gemini-budget']) {
        const json = await chat(gateway.baseUrl, secret, {
          model,
          reasoning_effort: 'high',
          reasoning: { exclude: true },
        });
        assert.equal(json.status, 200, JSON.stringify(json.body));
        const message = json.body.choices[0].message;
        assert.equal(message.reasoning_content, undefined, `${model}: no reasoning_content`);
        assert.equal(message.thinking_blocks, undefined, `${model}: no thinking blocks`);
        assert.ok(message.content.length > 0, `${model}: the answer`);
        assert.ok(json.body.usage.completion_tokens_details.reasoning_tokens > 0, `${model}: reasoning still counted`);

        const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model,
            stream: true,
            reasoning_effort: 'high',
            reasoning: { exclude: true },
            messages: [{ role: 'user', content: 'Say hello' }],
          }),
        });
        const text = await response.text();
        assert.equal(response.status, 200);
        assert.doesNotMatch(
          text,
          /reasoning_content|thinking_blocks|"reasoning"/,
          `${model}: no reasoning in the stream`,
        );
        assert.match(text, /"content":"/, `${model}: the answer streams`);
        assert.match(text, /"reasoning_tokens":[1-9]/, `${model}: reasoning tokens in the streamed usage`);
        assert.match(text, /data: \[DONE\]\n\n$/);
      }
    },
  );
});
