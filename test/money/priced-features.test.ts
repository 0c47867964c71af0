import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ADMIN_KEY, AdminClient, accountWithKey, usdToNano } from '../support/money.js';
import { storeBackends } from '../support/store-backends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 28 finding 10 over real HTTP: priced features a native node runs on its own (server
// tools, service tiers, priced betas). By default an Anthropic node and a native Responses
// node get offered server tools withdrawn, no `service_tier` and no priced beta, and a
// `tool_choice` forcing a server tool is a 400 naming it; a model whose `priced_features`
// allow them forwards them, reserves for them and books what the node reported (tool
// calls, the tier) at their prices, shown on the usage row. Against PGlite and PostgreSQL
// (the ledger's `features` column).

const backends = await storeBackends('priced-features');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

/** The fake node's reported token counts, the same for every reply. */
const INPUT = 1000;
const OUTPUT = 50;
/** Server-tool calls the fake node reports making (within the cap it was sent). */
const SEARCHES = 2;

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

type Tool = Record<string, unknown>;

function sse(event: string, data: object): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

/** Anthropic usage as a node with Priority Tier capacity reports it: web searches made, the tier. */
function anthropicUsage(body: Record<string, unknown>): Record<string, unknown> {
  const search = ((body.tools ?? []) as Tool[]).find((tool) => String(tool.type).startsWith('web_search_'));
  const searches = search === undefined ? 0 : Math.min(SEARCHES, Number(search.max_uses ?? SEARCHES));
  return {
    input_tokens: INPUT,
    output_tokens: OUTPUT,
    server_tool_use: { web_search_requests: searches },
    service_tier: 'priority',
  };
}

/** A Response with a hosted-tool call item for each hosted tool offered (two searches), in the tier asked for. */
function responseObject(body: Record<string, unknown>): Record<string, unknown> {
  const calls: Tool[] = [];
  for (const tool of (body.tools ?? []) as Tool[]) {
    if (String(tool.type).startsWith('web_search'))
      for (let i = 0; i < SEARCHES; i++) calls.push({ type: 'web_search_call', id: `ws_${i}`, status: 'completed' });
    if (tool.type === 'code_interpreter')
      calls.push({ type: 'code_interpreter_call', id: 'ci_0', status: 'completed', code: '1+1', outputs: [] });
  }
  return {
    id: `resp_node_${Math.random().toString(36).slice(2)}`,
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model: String(body.model),
    output: [
      ...calls,
      {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Gate four opens at six.', annotations: [] }],
      },
    ],
    service_tier: typeof body.service_tier === 'string' ? body.service_tier : 'default',
    usage: { input_tokens: INPUT, output_tokens: OUTPUT, total_tokens: INPUT + OUTPUT },
  };
}

/** One fake node for Anthropic (`/an`) and OpenAI chat and Responses (`/oa`), recording every request. */
function startNode(received: Received[]): Promise<Server> {
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const path = request.url ?? '';
      const body = JSON.parse(text) as Record<string, unknown>;
      received.push({ path, headers: request.headers, body });
      if (path === '/an/messages') {
        const usage = anthropicUsage(body);
        const message = {
          id: 'msg_n',
          type: 'message',
          role: 'assistant',
          model: String(body.model),
          content: [{ type: 'text', text: 'Gate four opens at six.' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
        };
        if (body.stream === true) {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.write(
            sse('message_start', {
              message: { ...message, content: [], stop_reason: null, usage: { input_tokens: INPUT, output_tokens: 1 } },
            }),
          );
          response.write(sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
          response.write(sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Six.' } }));
          response.write(sse('content_block_stop', { index: 0 }));
          response.write(sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage }));
          response.end(sse('message_stop', {}));
          return;
        }
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ ...message, usage }));
        return;
      }
      if (path === '/oa/responses') {
        const reply = responseObject(body);
        if (body.stream === true) {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.write(
            sse('response.created', { sequence_number: 0, response: { ...reply, status: 'in_progress', output: [] } }),
          );
          response.end(sse('response.completed', { sequence_number: 1, response: reply }));
          return;
        }
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(reply));
        return;
      }
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          id: 'chatcmpl-n',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: String(body.model),
          service_tier: typeof body.service_tier === 'string' ? body.service_tier : 'default',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Six.' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: INPUT, completion_tokens: OUTPUT, total_tokens: INPUT + OUTPUT },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const CLIENT_TOOL = { name: 'gate_status', description: 'A gate', input_schema: { type: 'object', properties: {} } };
/** Anthropic-defined tools the client runs: never withdrawn. */
const BASH_TOOL = { type: 'bash_20250124', name: 'bash' };
const WEB_SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 10 };
const CODE_EXECUTION = { type: 'code_execution_20250825', name: 'code_execution' };
const BETAS = 'claude-code-20250219,context-1m-2025-08-07,interleaved-thinking-2025-05-14';
const FUNCTION_TOOL = { type: 'function', name: 'gate_status', parameters: { type: 'object', properties: {} } };

async function postJson(
  gateway: TestGateway,
  path: string,
  secret: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; requestId: string; text: string }> {
  const response = await fetch(`${gateway.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? '',
    text: await response.text(),
  };
}

/** nano-USD of `tokens` at `usd` per million tokens, unrounded. */
const perMillion = (tokens: number, usd: number) => tokens * usdToNano(usd);

function gatewayConfig(backend: { store: string; journalDir: string }, origin: string, models: string): string {
  return `listen: { host: 127.0.0.1, port: 0 }
store: "${backend.store}"
admin_key: ${ADMIN_KEY}
usage: { journal_dir: "${backend.journalDir}", flush_interval_ms: 25 }
nodes:
  - { id: an, provider: anthropic, base_url: "${origin}/an", api_key: node-secret }
  - { id: oa, provider: openai, base_url: "${origin}/oa", apis: [chat, responses] }
models:
${models}`;
}

for (const backend of backends) {
  describe(
    `priced node features by default on ${backend.name}: withdrawn, not forwarded`,
    { skip: backend.skip },
    () => {
      const received: Received[] = [];
      let node: Server;
      let gateway: TestGateway;
      let admin: AdminClient;
      let secret: string;
      let keyId: string;

      before(async () => {
        node = await startNode(received);
        const origin = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
        gateway = await startTestGateway(
          gatewayConfig(
            backend,
            origin,
            `  - { id: claude, pricing: { input: 1, output: 2 }, routes: [{ node: an }] }
  - { id: gpt, pricing: { input: 1, output: 2 }, routes: [{ node: oa }] }
`,
          ),
        );
        admin = new AdminClient(gateway.baseUrl);
        ({ secret, keyId } = await accountWithKey(admin, { id: 'defaults', balance: 5 }));
      });
      after(async () => {
        await gateway?.close();
        node?.close();
      });

      test('Anthropic node: server tools withdrawn (client and Anthropic-defined tools kept), no service_tier, no priced beta; the tokens alone booked', async () => {
        for (const stream of [false, true]) {
          const before = received.length;
          const answer = await postJson(
            gateway,
            '/v1/messages',
            secret,
            {
              model: 'claude',
              max_tokens: 100,
              stream,
              service_tier: 'auto',
              tools: [CLIENT_TOOL, WEB_SEARCH, CODE_EXECUTION, BASH_TOOL],
              messages: [{ role: 'user', content: 'When does gate four open?' }],
            },
            { 'anthropic-version': '2023-06-01', 'anthropic-beta': BETAS },
          );
          assert.equal(answer.status, 200, answer.text);
          const sent = received[before];
          assert.ok(sent !== undefined);
          assert.deepEqual(sent.body.tools, [CLIENT_TOOL, BASH_TOOL], 'server tools withdrawn');
          assert.equal(sent.body.service_tier, undefined, 'service_tier not forwarded');
          assert.equal(sent.headers['anthropic-beta'], 'claude-code-20250219,interleaved-thinking-2025-05-14');
          // The node still reports the Priority Tier (its own default): a tier the model does not list costs the model's prices.
          const row = (await admin.usage({ request_id: answer.requestId })).data[0];
          assert.equal(row.cost_nano, Math.round((perMillion(INPUT, 1) + perMillion(OUTPUT, 2)) / 1_000_000));
          assert.equal(row.features, null);
        }
      });

      test('Anthropic node: a tool_choice forcing a withdrawn server tool is a 400 naming it; the node never hears of it', async () => {
        const client = new Anthropic({ baseURL: gateway.origin, apiKey: secret, maxRetries: 0 });
        const before = received.length;
        const refused = await client.messages
          .create({
            model: 'claude',
            max_tokens: 100,
            tools: [WEB_SEARCH],
            tool_choice: { type: 'tool', name: 'web_search' },
            messages: [{ role: 'user', content: 'Search the timetable.' }],
          } as never)
          .then(
            () => assert.fail('should be refused'),
            (failure: unknown) => failure,
          );
        assert.ok(refused instanceof Anthropic.BadRequestError, String(refused));
        assert.match(refused.message, /tool_choice\.name/);
        assert.match(refused.message, /web_search/);
        // `any` with nothing but withdrawn server tools forces one of them too.
        const any = await postJson(gateway, '/v1/messages', secret, {
          model: 'claude',
          max_tokens: 100,
          tools: [WEB_SEARCH],
          tool_choice: { type: 'any' },
          messages: [{ role: 'user', content: 'Search the timetable.' }],
        });
        assert.equal(any.status, 400, any.text);
        assert.match(any.text, /web_search/);
        assert.equal(received.length, before);
      });

      test('Responses node: hosted tools withdrawn, no service_tier, no max_tool_calls; forcing one is a 400; chat: no service_tier', async () => {
        for (const stream of [false, true]) {
          const before = received.length;
          const answer = await postJson(gateway, '/v1/responses', secret, {
            model: 'gpt',
            stream,
            store: false,
            input: 'When does gate four open?',
            service_tier: 'priority',
            tools: [
              FUNCTION_TOOL,
              { type: 'web_search_preview' },
              { type: 'code_interpreter', container: { type: 'auto' } },
            ],
          });
          assert.equal(answer.status, 200, answer.text);
          const sent = received[before];
          assert.ok(sent !== undefined);
          assert.deepEqual(sent.body.tools, [FUNCTION_TOOL]);
          assert.equal(sent.body.service_tier, undefined);
          assert.equal(sent.body.max_tool_calls, undefined);
          const row = (await admin.usage({ request_id: answer.requestId })).data[0];
          assert.equal(row.cost_nano, Math.round((perMillion(INPUT, 1) + perMillion(OUTPUT, 2)) / 1_000_000));
        }

        const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: secret, maxRetries: 0 });
        const before = received.length;
        const refused = await client.responses
          .create({
            model: 'gpt',
            input: 'Search the news.',
            tools: [{ type: 'web_search_preview' }],
            tool_choice: { type: 'web_search_preview' },
          })
          .then(
            () => assert.fail('should be refused'),
            (failure: unknown) => failure,
          );
        assert.ok(refused instanceof OpenAI.BadRequestError, String(refused));
        assert.equal((refused.error as { param?: string }).param, 'tool_choice');
        assert.match(refused.message, /web_search/);
        assert.equal(received.length, before);
        // Only hosted tools offered: none left, and no `required` choice among none.
        const only = await postJson(gateway, '/v1/responses', secret, {
          model: 'gpt',
          store: false,
          input: 'Search the news.',
          tools: [{ type: 'web_search' }],
          tool_choice: 'required',
        });
        assert.equal(only.status, 200, only.text);
        assert.deepEqual([received.at(-1)?.body.tools, received.at(-1)?.body.tool_choice], [undefined, undefined]);
        // Hosted tools declared in an additional_tools input item (Codex CLI) are withdrawn the same way.
        const declared = await postJson(gateway, '/v1/responses', secret, {
          model: 'gpt',
          store: false,
          input: [
            { type: 'additional_tools', role: 'developer', tools: [FUNCTION_TOOL, { type: 'web_search_preview' }] },
            { role: 'user', content: 'When does gate four open?' },
          ],
        });
        assert.equal(declared.status, 200, declared.text);
        const declaredInput = received.at(-1)?.body.input as Array<Record<string, unknown>>;
        assert.deepEqual(declaredInput[0]?.tools, [FUNCTION_TOOL]);
        assert.equal(received.at(-1)?.body.max_tool_calls, undefined);

        const chat = await postJson(gateway, '/v1/chat/completions', secret, {
          model: 'gpt',
          service_tier: 'priority',
          messages: [{ role: 'user', content: 'When does gate four open?' }],
        });
        assert.equal(chat.status, 200, chat.text);
        assert.equal(received.at(-1)?.body.service_tier, undefined);
        assert.equal(await admin.spentNano(keyId), (await admin.usage({ key: keyId })).totals.cost_nano);
      });
    },
  );

  describe(
    `priced node features allowed on ${backend.name}: forwarded, reserved, billed`,
    { skip: backend.skip },
    () => {
      const received: Received[] = [];
      let node: Server;
      let gateway: TestGateway;
      let admin: AdminClient;

      before(async () => {
        node = await startNode(received);
        const origin = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
        gateway = await startTestGateway(
          gatewayConfig(
            backend,
            origin,
            `  - id: claude
    pricing: { input: 1, output: 2 }
    priced_features:
      server_tools: { web_search: { usd_per_call: 0.01, max_calls: 3 } }
      service_tiers: { priority: { pricing: { input: 2, output: 4 } } }
      betas: { context-1m-2025-08-07: { pricing: { input: 3, output: 3 }, min_prompt_tokens: 500 } }
    routes: [{ node: an }]
  - id: gpt
    pricing: { input: 1, output: 2 }
    priced_features:
      server_tools:
        web_search: { usd_per_call: 0.025, max_calls: 4 }
        code_interpreter: { usd_per_call: 0.03, max_calls: 2 }
      service_tiers: { priority: { pricing: { input: 2, output: 4 } } }
    routes: [{ node: oa }]
`,
          ),
        );
        admin = new AdminClient(gateway.baseUrl);
      });
      after(async () => {
        await gateway?.close();
        node?.close();
      });

      test('Anthropic node: the allowed search capped at max_calls, the listed tier and beta forwarded; searches, tier and beta priced and on the row', async () => {
        const { keyId, secret } = await accountWithKey(admin, { id: 'allowed-an', balance: 5 });
        for (const stream of [false, true]) {
          const before = received.length;
          const answer = await postJson(
            gateway,
            '/v1/messages',
            secret,
            {
              model: 'claude',
              max_tokens: 100,
              stream,
              service_tier: 'priority',
              tools: [CLIENT_TOOL, WEB_SEARCH, CODE_EXECUTION],
              messages: [{ role: 'user', content: 'When does gate four open?' }],
            },
            { 'anthropic-version': '2023-06-01', 'anthropic-beta': BETAS },
          );
          assert.equal(answer.status, 200, answer.text);
          const sent = received[before];
          assert.ok(sent !== undefined);
          assert.deepEqual(sent.body.tools, [CLIENT_TOOL, { ...WEB_SEARCH, max_uses: 3 }], 'capped at max_calls');
          assert.equal(sent.body.service_tier, 'priority');
          assert.equal(sent.headers['anthropic-beta'], BETAS);
          const row = (await admin.usage({ request_id: answer.requestId })).data[0];
          // Tokens at the dearer of the priority tier and the beta, price by price; two searches at 0.01.
          const tokens = Math.round((perMillion(INPUT, 3) + perMillion(OUTPUT, 4)) / 1_000_000);
          assert.equal(row.cost_nano, tokens + SEARCHES * usdToNano(0.01), `stream=${stream}`);
          assert.deepEqual(row.features, {
            server_tool_calls: { web_search: SEARCHES },
            service_tier: 'priority',
            betas: ['context-1m-2025-08-07'],
          });
        }
        // Through the chat door (translated to the Anthropic node): the tier it reports is priced too.
        for (const stream of [false, true]) {
          const chat = await postJson(gateway, '/v1/chat/completions', secret, {
            model: 'claude',
            stream,
            messages: [{ role: 'user', content: 'When does gate four open?' }],
          });
          assert.equal(chat.status, 200, chat.text);
          const row = (await admin.usage({ request_id: chat.requestId })).data[0];
          assert.equal(row.cost_nano, Math.round((perMillion(INPUT, 2) + perMillion(OUTPUT, 4)) / 1_000_000));
          assert.deepEqual(row.features, { service_tier: 'priority' }, `stream=${stream}`);
        }
        assert.equal(await admin.spentNano(keyId), (await admin.usage({ key: keyId })).totals.cost_nano);
      });

      test("Anthropic node: the reservation covers the allowed tool's calls: a spend limit below them is a 402, a lower max_uses fits", async () => {
        const { secret } = await accountWithKey(admin, { id: 'reserve-an', balance: 5 }, { spend_limit: 0.025 });
        const body = (maxUses: number) => ({
          model: 'claude',
          max_tokens: 100,
          tools: [{ ...WEB_SEARCH, max_uses: maxUses }],
          messages: [{ role: 'user', content: 'Search the timetable.' }],
        });
        const before = received.length;
        const refused = await postJson(gateway, '/v1/messages', secret, body(10));
        assert.equal(refused.status, 402, refused.text);
        assert.equal(received.length, before, 'refused before any node');
        const fits = await postJson(gateway, '/v1/messages', secret, body(1));
        assert.equal(fits.status, 200, fits.text);
        assert.equal((received.at(-1)?.body.tools as Tool[])[0]?.max_uses, 1);
      });

      test('Responses node: allowed hosted tools and the tier forwarded, max_tool_calls capped; every call and the tier priced and on the row; chat: the tier priced', async () => {
        const { keyId, secret } = await accountWithKey(admin, { id: 'allowed-oa', balance: 5 });
        for (const stream of [false, true]) {
          const before = received.length;
          const tools = [
            FUNCTION_TOOL,
            { type: 'web_search_preview' },
            { type: 'code_interpreter', container: { type: 'auto' } },
          ];
          const answer = await postJson(gateway, '/v1/responses', secret, {
            model: 'gpt',
            stream,
            store: false,
            input: 'When does gate four open?',
            service_tier: 'priority',
            tools,
          });
          assert.equal(answer.status, 200, answer.text);
          const sent = received[before];
          assert.ok(sent !== undefined);
          assert.deepEqual(sent.body.tools, tools);
          assert.equal(sent.body.service_tier, 'priority');
          assert.equal(sent.body.max_tool_calls, 4, 'the largest max_calls of the tools offered');
          const row = (await admin.usage({ request_id: answer.requestId })).data[0];
          const tokens = Math.round((perMillion(INPUT, 2) + perMillion(OUTPUT, 4)) / 1_000_000);
          assert.equal(row.cost_nano, tokens + SEARCHES * usdToNano(0.025) + usdToNano(0.03), `stream=${stream}`);
          assert.deepEqual(row.features, {
            server_tool_calls: { web_search: SEARCHES, code_interpreter: 1 },
            service_tier: 'priority',
          });
        }
        const chat = await postJson(gateway, '/v1/chat/completions', secret, {
          model: 'gpt',
          service_tier: 'priority',
          messages: [{ role: 'user', content: 'When does gate four open?' }],
        });
        assert.equal(chat.status, 200, chat.text);
        assert.equal(received.at(-1)?.body.service_tier, 'priority');
        const row = (await admin.usage({ request_id: chat.requestId })).data[0];
        assert.equal(row.cost_nano, Math.round((perMillion(INPUT, 2) + perMillion(OUTPUT, 4)) / 1_000_000));
        assert.deepEqual(row.features, { service_tier: 'priority' });
        assert.equal(await admin.spentNano(keyId), (await admin.usage({ key: keyId })).totals.cost_nano);
      });
    },
  );
}
