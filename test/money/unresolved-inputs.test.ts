import Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { ADMIN_KEY, accountWithKey, AdminClient, openaiClient, usdToNano } from '../support/money.js';
import { storeBackends } from '../support/store-backends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// Issue 28 finding 1: input a native node resolves itself (a file by id on the Responses, Chat
// and Messages doors; a reference left unresolved in a stored conversation, counted in
// front-doors/responses/to-chat-request.test.ts) is charged by the node but cannot be counted
// by the gateway. The reservation bounds it at the model's `context_length` (or
// `unresolved_input_tokens` each), so concurrent requests cannot spend past a key's limit; a
// paid model with no bound refuses it (400). An `item_reference` to an item the account does
// not hold is refused before any node. Against PGlite and PostgreSQL.

const backends = await storeBackends('unresolved-inputs');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

/** Tokens the node charges for its big item or file: $0.10 at $1 per million input tokens. */
const BIG_TOKENS = 100_000;
const CONTEXT = 128_000;
/** How long the node takes per request, so the burst's requests are all in flight together. */
const NODE_DELAY_MS = 400;
const BURST = 20;
/** The key's limit: two requests' worth of the node's charge, one of the bound's. */
const LIMIT_USD = 0.2;
const OUTPUT_TOKENS = 5;

type Item = Record<string, unknown>;

function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * A node keeping its own items, files and conversations: an `item_reference` to `item_big`, a
 * file `file_big` (by id, in every protocol) costs BIG_TOKENS, a `previous_response_id` costs
 * the conversation the node stored under it. Answers after NODE_DELAY_MS, usage as it charges.
 */
function startNode(): Promise<Server> {
  const conversations = new Map<string, number>();
  let made = 0;
  function partTokens(part: unknown): number {
    if (!isItem(part)) return 0;
    if (typeof part.text === 'string') return textTokens(part.text);
    if (Array.isArray(part.content)) return contentTokens(part.content);
    const file = isItem(part.file) ? part.file : isItem(part.source) ? part.source : part;
    return file.file_id === 'file_big' ? BIG_TOKENS : 0;
  }
  function contentTokens(content: unknown): number {
    if (typeof content === 'string') return textTokens(content);
    return Array.isArray(content) ? content.reduce((sum: number, part) => sum + partTokens(part), 0) : 0;
  }
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = JSON.parse(text) as Item;
      const path = request.url ?? '';
      const reply = (status: number, payload: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(payload));
      };
      made++;
      const number = made;
      void sleep(NODE_DELAY_MS).then(() => {
        if (path.startsWith('/an/')) {
          const input = (body.messages as Item[]).reduce((sum, message) => sum + contentTokens(message.content), 0);
          reply(200, {
            id: `msg_${number}`,
            type: 'message',
            role: 'assistant',
            model: body.model,
            content: [{ type: 'text', text: 'Read.' }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: input, output_tokens: OUTPUT_TOKENS },
          });
          return;
        }
        if (path.endsWith('/chat/completions')) {
          const input = (body.messages as Item[]).reduce((sum, message) => sum + contentTokens(message.content), 0);
          reply(200, {
            id: `chatcmpl-${number}`,
            object: 'chat.completion',
            created: 1_700_000_000,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: 'Read.' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: input, completion_tokens: OUTPUT_TOKENS, total_tokens: input + OUTPUT_TOKENS },
          });
          return;
        }
        let input = 0;
        const previous = body.previous_response_id;
        if (typeof previous === 'string') {
          const before = conversations.get(previous);
          if (before === undefined)
            return reply(400, { error: { message: 'No such response.', type: 'invalid_request_error' } });
          input += before;
        }
        const items: unknown[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : [];
        if (Array.isArray(body.input)) items.push(...(body.input as unknown[]));
        for (const item of items) {
          if (!isItem(item)) continue;
          if (item.type === 'item_reference') {
            if (item.id !== 'item_big')
              return reply(404, { error: { message: 'Item not found.', type: 'invalid_request_error' } });
            input += BIG_TOKENS;
          } else input += contentTokens(item.content);
        }
        const id = `resp_node${String(number).padStart(20, '0')}`;
        conversations.set(id, input + OUTPUT_TOKENS);
        reply(200, {
          id,
          object: 'response',
          created_at: Math.floor(Date.now() / 1000),
          status: 'completed',
          model: body.model,
          output: [
            {
              type: 'message',
              id: `msg_node${number}`,
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text: 'Read.', annotations: [] }],
            },
          ],
          usage: {
            input_tokens: input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: OUTPUT_TOKENS,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: input + OUTPUT_TOKENS,
          },
        });
      });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const PRICE = '{ input: 1, output: 1 }';

interface Outcome {
  readonly served: number;
  readonly refused: number;
}

/** Runs `one` BURST times at once: how many were served and how many refused 402 api_key_limit_exceeded. */
async function burst(one: (index: number) => Promise<unknown>): Promise<Outcome> {
  const results = await Promise.allSettled(Array.from({ length: BURST }, (_, index) => one(index)));
  let served = 0;
  let refused = 0;
  for (const result of results) {
    if (result.status === 'fulfilled') served++;
    else if (
      (result.reason instanceof OpenAI.APIError || result.reason instanceof Anthropic.APIError) &&
      result.reason.status === 402
    )
      refused++;
    else throw result.reason;
  }
  return { served, refused };
}

for (const backend of backends) {
  describe(`input the gateway cannot size is reserved at its bound, on ${backend.name}`, { skip: backend.skip }, () => {
    let node: Server;
    let gateway: TestGateway;
    let admin: AdminClient;
    before(async () => {
      node = await startNode();
      const origin = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
      gateway = await startTestGateway(`listen: { host: 127.0.0.1, port: 0 }
store: "${backend.store}"
admin_key: ${ADMIN_KEY}
log_level: warn
usage: { journal_dir: "${backend.journalDir}", flush_interval_ms: 25 }
nodes:
  - { id: oa, provider: openai, base_url: "${origin}/oa", apis: [chat, responses], max_concurrency: 64 }
  - { id: an, provider: anthropic, base_url: "${origin}/an", api_key: node-secret, max_concurrency: 64 }
models:
  - { id: native, context_length: ${CONTEXT}, pricing: ${PRICE}, routes: [{ node: oa }] }
  - { id: native-claude, context_length: ${CONTEXT}, pricing: ${PRICE}, routes: [{ node: an }] }
  - { id: native-knob, unresolved_input_tokens: 150000, pricing: ${PRICE}, routes: [{ node: oa }] }
  - { id: native-unbounded, pricing: ${PRICE}, routes: [{ node: oa }] }
  - { id: native-free, routes: [{ node: oa }] }
`);
      admin = new AdminClient(gateway.baseUrl);
    });
    after(async () => {
      await gateway?.close();
      await new Promise((resolve) => node?.close(resolve));
    });

    /** A key limited to LIMIT_USD in an account that could pay far more. */
    async function limitedKey(id: string) {
      return accountWithKey(admin, { id, balance: 10 }, { spend_limit: LIMIT_USD });
    }

    async function spentAfterBurst(keyId: string, outcome: Outcome): Promise<number> {
      await waitFor(async () => (await admin.usage({ key: keyId })).totals.requests === outcome.served, 5000, {
        what: 'every served request booked',
      });
      return admin.spentNano(keyId);
    }

    test(`${BURST} concurrent item_references to an item the account does not hold: refused before any node, nothing spent`, async () => {
      const { keyId, secret } = await limitedKey('ref-burst');
      const client = openaiClient(gateway.baseUrl, secret);
      const results = await Promise.allSettled(
        Array.from({ length: BURST }, (_, index) =>
          client.responses.create({
            model: 'native',
            max_output_tokens: 16,
            store: false,
            input: [
              { type: 'item_reference', id: 'item_big' },
              { role: 'user', content: `Summarize it, request ${index}.` },
            ],
          }),
        ),
      );
      for (const result of results) {
        assert.equal(result.status, 'rejected');
        assert.ok(result.reason instanceof OpenAI.NotFoundError, String(result.reason));
      }
      assert.equal(await admin.spentNano(keyId), 0);
    });

    for (const door of ['responses', 'chat'] as const)
      test(`${BURST} concurrent files by file_id on the ${door} door (input_file / file parts): no more than the limit`, async () => {
        const { keyId, secret } = await limitedKey(`file-${door}`);
        const client = openaiClient(gateway.baseUrl, secret);
        const outcome = await burst((index) =>
          door === 'responses'
            ? client.responses.create({
                model: 'native',
                max_output_tokens: 16,
                store: false,
                input: [
                  {
                    role: 'user',
                    content: [
                      { type: 'input_file', file_id: 'file_big' },
                      { type: 'input_text', text: `Summarize, ${index}.` },
                    ],
                  },
                ],
              })
            : client.chat.completions.create({
                model: 'native',
                max_tokens: 16,
                messages: [
                  {
                    role: 'user',
                    content: [
                      { type: 'file', file: { file_id: 'file_big' } },
                      { type: 'text', text: `Summarize, ${index}.` },
                    ],
                  },
                ],
              }),
        );
        const spent = await spentAfterBurst(keyId, outcome);
        assert.ok(
          spent <= usdToNano(LIMIT_USD),
          `${door}: spent ${spent / 1e9} USD ≤ ${LIMIT_USD} (${JSON.stringify(outcome)})`,
        );
        assert.ok(outcome.served >= 1, door);
      });

    test(`${BURST} concurrent Messages with a document by file id to an Anthropic node: no more than the limit`, async () => {
      const { keyId, secret } = await limitedKey('file-messages');
      const client = new Anthropic({ apiKey: secret, baseURL: gateway.origin, maxRetries: 0, timeout: 10_000 });
      const outcome = await burst((index) =>
        client.beta.messages.create({
          model: 'native-claude',
          max_tokens: 16,
          betas: ['files-api-2025-04-14'],
          messages: [
            {
              role: 'user',
              content: [
                { type: 'document', source: { type: 'file', file_id: 'file_big' } },
                { type: 'text', text: `Summarize, ${index}.` },
              ],
            },
          ],
        }),
      );
      const spent = await spentAfterBurst(keyId, outcome);
      assert.ok(spent <= usdToNano(LIMIT_USD), `spent ${spent / 1e9} USD ≤ ${LIMIT_USD} (${JSON.stringify(outcome)})`);
      assert.ok(outcome.served >= 1);
    });

    test(`${BURST} concurrent Messages carrying a search_result the chat form has no place for: priced as its text, no more than the limit`, async () => {
      // 40,000 words: the gateway's tokenizer counts 40,000 tokens ($0.04 reserved), the node
      // charges 50,000 ($0.05). A limit of $0.06 fits one reservation at a time.
      const limitUsd = 0.06;
      const { keyId, secret } = await accountWithKey(
        admin,
        { id: 'search-result', balance: 10 },
        { spend_limit: limitUsd },
      );
      const client = new Anthropic({ apiKey: secret, baseURL: gateway.origin, maxRetries: 0, timeout: 20_000 });
      const found = 'word '.repeat(40_000);
      const outcome = await burst((index) =>
        client.messages.create({
          model: 'native-claude',
          max_tokens: 16,
          messages: [
            {
              role: 'user',
              content: [
                {
                  type: 'search_result',
                  source: 'https://example.com',
                  title: 'Found',
                  content: [{ type: 'text', text: found }],
                },
                { type: 'text', text: `Summarize, ${index}.` },
              ],
            },
          ],
        }),
      );
      const spent = await spentAfterBurst(keyId, outcome);
      assert.ok(spent <= usdToNano(limitUsd), `spent ${spent / 1e9} USD ≤ ${limitUsd} (${JSON.stringify(outcome)})`);
      assert.ok(outcome.served >= 1);
    });

    test('unresolved_input_tokens bounds each file or reference when the context is not configured; with neither, a paid model refuses it (400) and a free one serves it', async () => {
      // 150,000 tokens at $1 per million: $0.15 reserved for one reference, more than a 0.14 limit.
      const { secret } = await accountWithKey(admin, { id: 'ref-knob', balance: 10 }, { spend_limit: 0.14 });
      const client = openaiClient(gateway.baseUrl, secret);
      const referencing = (model: string) =>
        client.responses.create({
          model,
          max_output_tokens: 16,
          store: false,
          input: [
            {
              role: 'user',
              content: [
                { type: 'input_file', file_id: 'file_big' },
                { type: 'input_text', text: 'Summarize it.' },
              ],
            },
          ],
        });
      await assert.rejects(referencing('native-knob'), (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError);
        assert.equal(error.status, 402);
        assert.equal(error.code, 'api_key_limit_exceeded');
        return true;
      });
      const plain = await client.responses.create({ model: 'native-knob', max_output_tokens: 16, input: 'Hi' });
      assert.equal(plain.status, 'completed');
      await assert.rejects(referencing('native-unbounded'), (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal(error.code, 'validation_failed');
        assert.match(error.message, /native-unbounded.*context_length or unresolved_input_tokens/);
        return true;
      });
      assert.equal((await referencing('native-free')).status, 'completed');
    });
  });
}
