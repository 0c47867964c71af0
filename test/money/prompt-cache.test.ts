import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ADMIN_KEY, AdminClient, accountWithKey, usdToNano } from '../support/money.js';
import { storeBackends } from '../support/store-backends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// PRODUCT.md decision 21 over real HTTP: cache_control (with its ttl) reaches an Anthropic
// node; the node's cache reads and 5-minute and 1-hour writes come back in the client's usage
// and are booked in the ledger at cached_input, cache_write and cache_write_1h, the rest at
// input, each token once; an OpenAI node's cached_tokens (prompt_cache_key passed through)
// and Gemini's cachedContentTokenCount are priced at cached_input; documents reach Anthropic
// and Gemini, audio Anthropic cannot take is a 400 naming the part, and a document is counted
// in the reservation. Against PGlite and PostgreSQL (the ledger's new columns).

const backends = await storeBackends('prompt-cache');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

/** USD per million tokens with fractions of a nano-USD per token, so rounding is exercised. */
const PRICE = { input: 0.1234567, output: 1.9876543, cached_input: 0.0123457 };
const SET_WRITES = { cache_write: 0.2222221, cache_write_1h: 0.3333337 };

const ANTHROPIC_USAGE = {
  input_tokens: 100,
  cache_read_input_tokens: 2000,
  cache_creation_input_tokens: 1500,
  cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 1000 },
};
const OUTPUT = 40;
const ANSWER = 'Gate four opens at six.';

interface Received {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

function sse(event: string | undefined, data: object): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(event === undefined ? data : { type: event, ...data })}\n\n`;
}

/** One fake node for the three protocols, told apart by path prefix, recording every body. */
function startNode(received: Received[]): Promise<Server> {
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const path = request.url ?? '';
      const body = JSON.parse(text) as Record<string, unknown>;
      received.push({ path, body });
      if (path.startsWith('/an/')) {
        if (body.stream === true) {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.write(
            sse('message_start', {
              message: {
                id: 'msg_c',
                type: 'message',
                role: 'assistant',
                model: 'claude',
                content: [],
                stop_reason: null,
                usage: { ...ANTHROPIC_USAGE, output_tokens: 1 },
              },
            }),
          );
          response.write(sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
          response.write(sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ANSWER } }));
          response.write(sse('content_block_stop', { index: 0 }));
          response.write(
            sse('message_delta', {
              delta: { stop_reason: 'end_turn', stop_sequence: null },
              usage: { output_tokens: OUTPUT },
            }),
          );
          response.end(sse('message_stop', {}));
          return;
        }
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            id: 'msg_c',
            type: 'message',
            role: 'assistant',
            model: 'claude',
            stop_reason: 'end_turn',
            stop_sequence: null,
            content: [{ type: 'text', text: ANSWER }],
            usage: { ...ANTHROPIC_USAGE, output_tokens: OUTPUT },
          }),
        );
        return;
      }
      if (path.startsWith('/ge/')) {
        const reply = {
          candidates: [{ content: { role: 'model', parts: [{ text: ANSWER }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: {
            promptTokenCount: 3000,
            cachedContentTokenCount: 2048,
            candidatesTokenCount: OUTPUT,
            totalTokenCount: 3000 + OUTPUT,
          },
        };
        if (path.includes(':streamGenerateContent')) {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.end(sse(undefined, reply));
          return;
        }
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(reply));
        return;
      }
      const usage = {
        prompt_tokens: 3000,
        completion_tokens: OUTPUT,
        total_tokens: 3000 + OUTPUT,
        prompt_tokens_details: { cached_tokens: 2048 },
      };
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          id: 'chatcmpl-c',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'node-model',
          choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
          usage,
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** nano-USD per million tokens of a USD price. */
const nano = (usd: number) => usdToNano(usd);

/** The cost from first principles: each part of the prompt once, at its own price; one rounding. */
function expectedNano(
  parts: { input: number; cached: number; write5m: number; write1h: number; output: number },
  writePrices: { cache_write?: number; cache_write_1h?: number } = {},
): number {
  const write5m = writePrices.cache_write === undefined ? nano(PRICE.input) * 1.25 : nano(writePrices.cache_write);
  const write1h = writePrices.cache_write_1h === undefined ? nano(PRICE.input) * 2 : nano(writePrices.cache_write_1h);
  return Math.round(
    (parts.input * nano(PRICE.input) +
      parts.cached * nano(PRICE.cached_input) +
      parts.write5m * write5m +
      parts.write1h * write1h +
      parts.output * nano(PRICE.output)) /
      1_000_000,
  );
}

async function post(
  gateway: TestGateway,
  secret: string,
  body: Record<string, unknown>,
): Promise<{ status: number; requestId: string; text: string }> {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? '',
    text: await response.text(),
  };
}

/** The usage of a JSON reply, or of the last usage chunk of a stream. */
function usageOf(text: string, stream: boolean): Record<string, unknown> {
  if (!stream) return (JSON.parse(text) as { usage: Record<string, unknown> }).usage;
  const chunks = text
    .split('\n\n')
    .filter((event) => event.startsWith('data: {'))
    .map((event) => JSON.parse(event.slice(6)) as { usage?: Record<string, unknown> });
  const last = chunks.filter((chunk) => chunk.usage !== undefined && chunk.usage !== null).at(-1);
  assert.ok(last?.usage, text);
  return last.usage;
}

const PDF = Buffer.from('%PDF-1.4 timetable of the eastern yard').toString('base64');
const CACHED_CONVERSATION = {
  messages: [
    {
      role: 'system',
      content: [{ type: 'text', text: 'You run the eastern yard.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    },
    {
      role: 'user',
      content: [
        {
          type: 'file',
          file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'timetable.pdf' },
          cache_control: { type: 'ephemeral' },
        },
        { type: 'text', text: 'When does gate four open?' },
      ],
    },
  ],
  tools: [
    {
      type: 'function',
      function: { name: 'gate_status', parameters: { type: 'object', properties: {} } },
      cache_control: { type: 'ephemeral', ttl: '1h' },
    },
  ],
};

for (const backend of backends) {
  describe(`prompt caching priced and booked on ${backend.name}`, { skip: backend.skip }, () => {
    const received: Received[] = [];
    let node: Server;
    let gateway: TestGateway;
    let admin: AdminClient;

    before(async () => {
      node = await startNode(received);
      const origin = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
      const pricing = (extra: Record<string, number> = {}) =>
        `{ ${Object.entries({ ...PRICE, ...extra })
          .map(([name, value]) => `${name}: ${value}`)
          .join(', ')} }`;
      gateway = await startTestGateway(`listen: { host: 127.0.0.1, port: 0 }
store: "${backend.store}"
admin_key: ${ADMIN_KEY}
usage: { journal_dir: "${backend.journalDir}", flush_interval_ms: 25 }
nodes:
  - { id: an, provider: anthropic, base_url: "${origin}/an", api_key: node-secret }
  - { id: oa, provider: openai, base_url: "${origin}/oa" }
  - { id: ge, provider: gemini, base_url: "${origin}/ge", api_key: node-secret }
models:
  - { id: claude, pricing: ${pricing()}, routes: [{ node: an }] }
  - { id: claude-set, pricing: ${pricing(SET_WRITES)}, routes: [{ node: an }] }
  - { id: gpt, pricing: ${pricing()}, routes: [{ node: oa }] }
  - { id: gemini, pricing: ${pricing()}, routes: [{ node: ge }] }
`);
      admin = new AdminClient(gateway.baseUrl);
    });
    after(async () => {
      await gateway?.close();
      node?.close();
    });

    test('Anthropic: cache_control and the document reach the node; reads and 5-minute and 1-hour writes are reported and booked exactly, JSON and stream', async () => {
      const { keyId, secret } = await accountWithKey(admin, { id: 'cache', balance: 5 });
      const cases = [
        { model: 'claude', stream: false, writes: {} },
        { model: 'claude', stream: true, writes: {} },
        { model: 'claude-set', stream: false, writes: SET_WRITES },
      ];
      const expected = new Map<string, number>();
      for (const { model, stream, writes } of cases) {
        const before = received.length;
        const answer = await post(gateway, secret, {
          model,
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
          ...CACHED_CONVERSATION,
        });
        assert.equal(answer.status, 200, answer.text);
        const sent = received[before]?.body as Record<string, unknown>;
        assert.deepEqual(sent.system, [
          { type: 'text', text: 'You run the eastern yard.', cache_control: { type: 'ephemeral', ttl: '1h' } },
        ]);
        assert.deepEqual((sent.messages as Array<{ content: unknown[] }>)[0]?.content[0], {
          type: 'document',
          source: { type: 'base64', media_type: 'application/pdf', data: PDF },
          title: 'timetable.pdf',
          cache_control: { type: 'ephemeral' },
        });
        assert.deepEqual((sent.tools as Array<Record<string, unknown>>)[0]?.cache_control, {
          type: 'ephemeral',
          ttl: '1h',
        });
        assert.deepEqual(
          usageOf(answer.text, stream),
          {
            prompt_tokens: 3600,
            completion_tokens: OUTPUT,
            total_tokens: 3600 + OUTPUT,
            prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 1500, cache_write_1h_tokens: 1000 },
            completion_tokens_details: { reasoning_tokens: 0 },
          },
          `${model} stream=${stream}`,
        );
        expected.set(
          answer.requestId,
          expectedNano({ input: 100, cached: 2000, write5m: 500, write1h: 1000, output: OUTPUT }, writes),
        );
      }
      const report = await admin.usage({ key: keyId });
      assert.equal(report.data.length, cases.length);
      for (const row of report.data as Array<Record<string, unknown>>) {
        assert.equal(row.cost_nano, expected.get(row.request_id as string), `cost of ${String(row.model)}`);
        assert.deepEqual(
          [row.prompt_tokens, row.cached_tokens, row.cache_write_tokens, row.cache_write_1h_tokens, row.estimated],
          [3600, 2000, 1500, 1000, false],
        );
      }
      assert.equal(report.totals.cache_write_tokens, 1500 * cases.length);
      assert.equal(
        report.totals.cost_nano,
        [...expected.values()].reduce((sum, cost) => sum + cost, 0),
      );
      assert.equal(await admin.spentNano(keyId), report.totals.cost_nano, 'the key spent what the rows say');
    });

    test('OpenAI: prompt_cache_key passes through and cached_tokens is priced at cached_input; Gemini cachedContentTokenCount likewise', async () => {
      const { keyId, secret } = await accountWithKey(admin, { id: 'cache-oa', balance: 5 });
      const expected = expectedNano({ input: 3000 - 2048, cached: 2048, write5m: 0, write1h: 0, output: OUTPUT });
      const before = received.length;
      const gpt = await post(gateway, secret, {
        model: 'gpt',
        prompt_cache_key: 'yard-42',
        messages: [{ role: 'user', content: 'When does gate four open?' }],
      });
      assert.equal(gpt.status, 200, gpt.text);
      assert.equal(received[before]?.body.prompt_cache_key, 'yard-42');
      for (const stream of [false, true]) {
        const gemini = await post(gateway, secret, {
          model: 'gemini',
          stream,
          messages: [{ role: 'user', content: 'When does gate four open?' }],
        });
        assert.equal(gemini.status, 200, gemini.text);
        assert.deepEqual(
          (usageOf(gemini.text, stream).prompt_tokens_details as Record<string, unknown>).cached_tokens,
          2048,
        );
      }
      const report = await admin.usage({ key: keyId });
      assert.equal(report.data.length, 3);
      for (const row of report.data as Array<Record<string, unknown>>) {
        assert.deepEqual(
          [row.model, row.prompt_tokens, row.cached_tokens, row.cache_write_tokens, row.cost_nano],
          [row.model, 3000, 2048, 0, expected],
        );
      }
    });

    test('documents and audio: Gemini gets inlineData, Anthropic a 400 naming the audio part, and a large document is counted in the reservation', async () => {
      const { secret } = await accountWithKey(admin, { id: 'media', balance: 0.01 });
      const wav = Buffer.from('RIFF....WAVEfmt ').toString('base64');
      const media = [
        { type: 'text', text: 'Listen and read.' },
        { type: 'input_audio', input_audio: { data: wav, format: 'wav' } },
        { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}` } },
      ];
      const before = received.length;
      const gemini = await post(gateway, secret, { model: 'gemini', messages: [{ role: 'user', content: media }] });
      assert.equal(gemini.status, 200, gemini.text);
      assert.deepEqual((received[before]?.body.contents as Array<{ parts: unknown[] }>)[0]?.parts, [
        { text: 'Listen and read.' },
        { inlineData: { mimeType: 'audio/wav', data: wav } },
        { inlineData: { mimeType: 'application/pdf', data: PDF } },
      ]);
      const claude = await post(gateway, secret, {
        model: 'claude',
        messages: [
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: 'Hi' },
          { role: 'user', content: media },
        ],
      });
      assert.equal(claude.status, 400, claude.text);
      assert.equal((JSON.parse(claude.text) as { error: { param: string } }).error.param, 'messages[2].content[1]');
      assert.equal(received.length, before + 1, 'the refused request reached no node');

      // $0.01 covers a short question's reservation (4096 output tokens ≈ $0.0081), not a 400 kB PDF's 100,000 prompt tokens on top.
      const question = await post(gateway, secret, {
        model: 'gpt',
        messages: [{ role: 'user', content: 'When does gate four open?' }],
      });
      assert.equal(question.status, 200, question.text);
      const big = Buffer.alloc(400_000, 7).toString('base64');
      const document = await post(gateway, secret, {
        model: 'gpt',
        messages: [
          { role: 'user', content: [{ type: 'file', file: { file_data: `data:application/pdf;base64,${big}` } }] },
        ],
      });
      assert.equal(document.status, 402, document.text);
      assert.equal(received.length, before + 2, 'the document was refused before any node');
    });
  });
}
