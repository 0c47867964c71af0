import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import type { ModelConfig, NodeConfig, ReasoningEffort } from '../../src/config/gateway-config.js';
import type { ChatRequest } from '../../src/protocol/openai/chat-request-schema.js';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { geminiAdapter } from '../../src/providers/gemini/adapter.js';
import { openaiAdapter } from '../../src/providers/openai/adapter.js';
import type { ProviderAdapter } from '../../src/providers/types.js';
import { FIXTURE_MODEL, fixtureContext, fixtureNode, mapStream } from '../support/adapter-fixtures.js';
import { sseData } from '../support/sse.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

// Issue 18: every JSON body and chunk the adapters make from the recorded node replies
// (src/providers/*/__fixtures__) validates against OpenAI's own chat-completion schemas.
// test/fixtures/openai-chat-schemas.json is CreateChatCompletionResponse,
// CreateChatCompletionStreamResponse and what they reference, taken from openapi.json of
// github.com/openai/openai-openapi at commit f85dbe223d40e1a31cba812ab2d755c7e98a92a3.

/** OpenAPI 3.0's `nullable: true` (still used in places of the 3.1 document) in JSON Schema terms. */
function withNullables(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withNullables);
  if (schema === null || typeof schema !== 'object') return schema;
  const { nullable, ...rest } = schema as Record<string, unknown>;
  const converted = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, withNullables(value)]));
  return nullable === true ? { anyOf: [converted, { type: 'null' }] } : converted;
}

const schemas = withNullables(
  JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/openai-chat-schemas.json'), 'utf8')),
) as { $id: string };
// OpenAPI's other keywords (discriminator, format "unixtime") are not JSON Schema: ignored.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(schemas);
const validateReply = ajv.compile({ $ref: `${schemas.$id}#/components/schemas/CreateChatCompletionResponse` });
const validateChunk = ajv.compile({ $ref: `${schemas.$id}#/components/schemas/CreateChatCompletionStreamResponse` });

function explain(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`)
    .join('; ');
}

/** Asserts a reply body and returns it parsed. */
function assertChatCompletion(text: string, where: string): Record<string, unknown> {
  const body = JSON.parse(text) as Record<string, unknown>;
  assert.ok(validateReply(body), `${where}: ${explain(validateReply.errors)}\n${text}`);
  return body;
}

function assertChunk(text: string, where: string): void {
  assert.ok(validateChunk(JSON.parse(text)), `${where}: ${explain(validateChunk.errors)}\n${text}`);
}

interface FixtureCase {
  effort: ReasoningEffort | null;
  stream: boolean;
  model?: Partial<ModelConfig> & { reasoning?: Partial<NonNullable<ModelConfig['reasoning']>> | null };
  request: ChatRequest;
}

/** The call context adapter-fixtures.ts builds for a case. */
function caseContext(fixture: FixtureCase, node: NodeConfig) {
  const reasoning =
    fixture.model?.reasoning === null
      ? undefined
      : { ...(FIXTURE_MODEL.reasoning as NonNullable<ModelConfig['reasoning']>), ...fixture.model?.reasoning };
  const model = { ...FIXTURE_MODEL, ...fixture.model, reasoning } as ModelConfig;
  return fixtureContext(node, { effort: fixture.effort ?? undefined, stream: fixture.stream, model }, fixture.request);
}

function chunksOf(lines: readonly string[]): string[] {
  return lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length));
}

const ADAPTERS: ReadonlyArray<readonly [ProviderAdapter, string]> = [
  [openaiAdapter, 'openai'],
  [anthropicAdapter, 'anthropic'],
  [geminiAdapter, 'gemini'],
];

for (const [adapter, folder] of ADAPTERS) {
  describe(`${folder} adapter output against OpenAI's schemas`, () => {
    const directory = join(import.meta.dirname, '../../src/providers', folder, '__fixtures__');
    const node = fixtureNode(adapter.protocol as NodeConfig['protocol']);
    const files = readdirSync(directory).sort();
    const cases = files
      .filter((file) => file.endsWith('.case.json'))
      .map((file) => file.slice(0, -'.case.json'.length));
    // Replies recorded without a case (the OpenAI relay's): mapped with a plain context.
    const loose = files.filter(
      (file) => /\.(sse|json)$/.test(file) && !cases.some((name) => file.startsWith(`${name}.`)),
    );
    let checked = 0;

    for (const name of cases) {
      test(`${name}`, () => {
        const fixture = JSON.parse(readFileSync(join(directory, `${name}.case.json`), 'utf8')) as FixtureCase;
        const context = caseContext(fixture, node);
        const json = join(directory, `${name}.reply.json`);
        if (existsSync(json)) {
          assertChatCompletion(adapter.fromUpstream(readFileSync(json, 'utf8'), context).body, `${name} JSON`);
          checked++;
        }
        const sse = join(directory, `${name}.reply.sse`);
        if (existsSync(sse)) {
          const chunks = chunksOf(mapStream(adapter, context, [readFileSync(sse, 'utf8')]));
          chunks.forEach((chunk, index) => assertChunk(chunk, `${name} chunk ${index}`));
          checked += chunks.length;
        }
      });
    }
    for (const file of loose) {
      test(`${file}`, () => {
        const text = readFileSync(join(directory, file), 'utf8');
        if (file.endsWith('.json')) {
          assertChatCompletion(adapter.fromUpstream(text, fixtureContext(node, { stream: false })).body, file);
          checked++;
        } else {
          const chunks = chunksOf(mapStream(adapter, fixtureContext(node, { stream: true }), [text]));
          assert.ok(chunks.length > 0, `${file} maps to chunks`);
          chunks.forEach((chunk, index) => assertChunk(chunk, `${file} chunk ${index}`));
          checked += chunks.length;
        }
      });
    }
    test('the fixtures were there', () => assert.ok(checked > 0, `nothing checked in ${directory}`));
  });
}

/** An OpenAI-compatible node that sends no usage at all (the gateway then sends its estimate). */
function startNodeWithoutUsage(): Promise<Server> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const base = { id: 'chatcmpl-nousage', created: 1_700_000_000, model: 'node-model' };
      if ((JSON.parse(body) as { stream?: boolean }).stream === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'Open.' }, logprobs: null, finish_reason: 'stop' }] })}\n\n`,
        );
        response.end('data: [DONE]\n\n');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Open.' }, finish_reason: 'stop' }],
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe("what the gateway sends, through HTTP, against OpenAI's schemas", () => {
  const KEY = 'sk-schema-e2e-0123456789';
  let gateway: TestGateway;
  let bare: Server;
  before(async () => {
    bare = await startNodeWithoutUsage();
    gateway = await startTestGateway(`
nodes:
  - { id: sim-openai, provider: simulated }
  - { id: sim-claude, provider: simulated, simulated: { protocol: anthropic } }
  - { id: sim-gem, provider: simulated, simulated: { protocol: gemini } }
  - { id: bare, provider: openai, base_url: "http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1" }
models:
  - { id: via-openai, reasoning: { default_effort: low }, routes: [{ node: sim-openai }] }
  - { id: via-anthropic, reasoning: { default_effort: low }, routes: [{ node: sim-claude }] }
  - { id: via-gemini, reasoning: { default_effort: low }, routes: [{ node: sim-gem }] }
  - { id: no-usage, routes: [{ node: bare }] }
keys:
  - { key: ${KEY} }
`);
  });
  after(async () => {
    await gateway?.close();
    bare?.close();
  });

  const ask = (model: string, stream: boolean) =>
    fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        stream,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Is the yard open?' }],
      }),
      signal: AbortSignal.timeout(8000),
    });

  for (const model of ['via-openai', 'via-anthropic', 'via-gemini', 'no-usage']) {
    test(
      `${model}: the JSON reply and every chunk, the gateway's usage chunk included`,
      { timeout: 20_000 },
      async () => {
        const json = await ask(model, false);
        assert.equal(json.status, 200);
        const body = assertChatCompletion(await json.text(), `${model} JSON`);
        assert.ok(body.usage !== undefined, `${model}: the JSON reply has usage`);
        if (model === 'no-usage')
          assert.equal((body.usage as { estimated?: unknown }).estimated, true, 'the estimate is marked');

        const stream = await ask(model, true);
        assert.equal(stream.status, 200);
        const events = sseData(await stream.text());
        assert.equal(events.at(-1), '[DONE]');
        const chunks = events.slice(0, -1);
        chunks.forEach((chunk, index) => assertChunk(chunk, `${model} chunk ${index}`));
        const last = JSON.parse(chunks.at(-1) ?? '{}') as { usage?: { estimated?: unknown } };
        assert.ok(last.usage !== undefined, `${model}: the last chunk carries usage`);
        if (model === 'no-usage') assert.equal(last.usage.estimated, true);
      },
    );
  }
});
