import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { outputCapOf } from '../../src/billing/estimate-request.js';
import type { ModelConfig, NodeConfig, ReasoningEffort } from '../../src/config/gateway-config.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import type { ChatRequest } from '../../src/protocol/openai/chat-request-schema.js';
import type { ChatCompletionChunk } from '../../src/protocol/openai/chat-response-types.js';
import type { CallContext, ProviderAdapter } from '../../src/providers/types.js';
import { SseParser } from '../../src/streaming/sse-parser.js';

/**
 * Recorded-fixture tests for a translating adapter (STYLE.md §7). In `__fixtures__/`, a
 * case `<name>` is:
 *
 * - `<name>.case.json`: `{description, effort, stream, model?, node?, request}`: what the client sent;
 * - `<name>.upstream.json`: the node request the adapter must build (`path`, `headers`, `body`);
 * - `<name>.reply.json` or `<name>.reply.sse`: the node's reply, as recorded;
 * - `<name>.client.json` or `<name>.client.sse`: what the client must get (JSON body, or the
 *   chunks as `data:` lines; a last line `error: <text>` means the stream ends with the
 *   gateway's error event carrying that text). `created` is written as 0.
 *
 * Streams are replayed whole, one character at a time and cut at seeded random offsets;
 * all three must give the same chunks. `UPDATE_FIXTURES=1` rewrites the expected files from
 * the adapter's output, to be reviewed before committing.
 */

interface FixtureCase {
  description: string;
  effort: ReasoningEffort | null;
  stream: boolean;
  model?: Partial<Pick<ModelConfig, 'defaultMaxTokens' | 'maxOutputTokens'>> & {
    reasoning?: Partial<NonNullable<ModelConfig['reasoning']>> | null;
  };
  request: ChatRequest;
}

const UPDATE = process.env.UPDATE_FIXTURES === '1';

export const FIXTURE_MODEL: ModelConfig = {
  id: 'client-model',
  ownedBy: 'test',
  created: 0,
  contextLength: undefined,
  maxOutputTokens: undefined,
  defaultMaxTokens: 16000,
  reasoning: {
    defaultEffort: 'medium',
    style: 'budget',
    budgets: { low: 1024, medium: 8192, high: 24576 },
    levels: { low: 'low', medium: 'medium', high: 'high' },
  },
  pricing: undefined,
  routes: [],
} as ModelConfig;

/**
 * A call context for fixtures: fixed ids, the given node and model, and the output cap the
 * gateway would reserve for `request` (the prompt not counted), as the route computes it.
 */
export function fixtureContext(
  node: NodeConfig,
  overrides: Partial<CallContext> = {},
  request: ChatRequest = { model: 'client-model', messages: [] },
): CallContext {
  const model = overrides.model ?? FIXTURE_MODEL;
  return {
    outputCap: outputCapOf(request, model, 0),
    requestId: 'req_fixture',
    correlationId: 'corr_fixture',
    clientModel: 'client-model',
    upstreamModel: 'upstream-model',
    node,
    model: FIXTURE_MODEL,
    effort: 'medium',
    stream: false,
    retryOnStatus: new Set([401, 403, 408, 429, 500, 502, 503, 504, 529]),
    ...overrides,
  };
}

/** A node of the protocol, as the adapter sees it. */
export function fixtureNode(protocol: NodeConfig['protocol'], apiKey = 'node-secret'): NodeConfig {
  return {
    id: `${protocol}-node`,
    provider: protocol,
    protocol,
    baseUrl: 'http://127.0.0.1:1',
    apiKey,
    maxConcurrency: 1,
    weight: 1,
    timeouts: { connectMs: 1, firstByteMs: 1, idleMs: 1, totalMs: 1, minTokensPerSecond: 1 },
    replies: { maxJsonBytes: 1024 * 1024, maxEventBytes: 1024 * 1024 },
    reasoningParam: 'reasoning_effort',
    maxTokensField: 'max_tokens',
    anthropicVersion: '2023-06-01',
    nativeApis: new Set(),
    simulated: undefined,
  };
}

function contextFor(fixture: FixtureCase, node: NodeConfig): CallContext {
  const reasoning =
    fixture.model?.reasoning === null
      ? undefined
      : { ...(FIXTURE_MODEL.reasoning as NonNullable<ModelConfig['reasoning']>), ...fixture.model?.reasoning };
  const model = { ...FIXTURE_MODEL, ...fixture.model, reasoning } as ModelConfig;
  return fixtureContext(node, { effort: fixture.effort ?? undefined, stream: fixture.stream, model }, fixture.request);
}

/** `created` is the gateway's clock: written as 0 in fixtures. */
function normalize(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && 'created' in value) return { ...value, created: 0 };
  return value;
}

/** Maps an SSE text fed in `pieces`; returns the chunks as `data:` lines, plus an `error:` line if the stream failed. */
export function mapStream(adapter: ProviderAdapter, context: CallContext, pieces: readonly string[]): string[] {
  const mapper = adapter.streamMapper(context);
  const parser = new SseParser();
  const lines: string[] = [];
  const emit = (chunk: ChatCompletionChunk): void => {
    lines.push(`data: ${JSON.stringify(normalize(chunk))}`);
  };
  let ended = false;
  const onRecord = (record: { event: string | undefined; data: string }): void => {
    if (!ended && mapper.map(record, emit, unexpectedWrite) === 'end') ended = true;
  };
  try {
    for (const piece of pieces) parser.push(piece, onRecord);
    parser.end(onRecord);
    if (!ended) mapper.finish?.(emit);
  } catch (error) {
    assert.ok(isGatewayError(error), `a GatewayError, got ${String(error)}`);
    lines.push(`error: ${error.message}`);
  }
  return lines;
}

/** Splits `text` at `count` offsets from a seeded generator. */
export function randomPieces(text: string, seed: number, count = 12): string[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
  const offsets = Array.from({ length: count }, () => Math.floor(next() * text.length)).sort((a, b) => a - b);
  const pieces: string[] = [];
  let start = 0;
  for (const offset of offsets) {
    pieces.push(text.slice(start, offset));
    start = offset;
  }
  pieces.push(text.slice(start));
  return pieces;
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function expectFile(path: string, actual: string): void {
  if (UPDATE) writeFileSync(path, actual);
  assert.ok(existsSync(path), `missing fixture ${path} (run with UPDATE_FIXTURES=1, then review it)`);
  assert.equal(actual, readFileSync(path, 'utf8'), path);
}

/** One test per case in `directory`. */
export function runFixtureCases(adapter: ProviderAdapter, directory: string): void {
  const node = fixtureNode(adapter.protocol as NodeConfig['protocol']);
  const names = readdirSync(directory)
    .filter((file) => file.endsWith('.case.json'))
    .map((file) => file.slice(0, -'.case.json'.length))
    .sort();
  assert.ok(names.length > 0, `no fixtures in ${directory}`);
  for (const name of names) {
    const fixture = readJson(join(directory, `${name}.case.json`)) as FixtureCase;
    test(`${adapter.protocol} fixture ${name}: ${fixture.description}`, () => {
      const context = contextFor(fixture, node);
      const call = adapter.toUpstream(fixture.request, context);
      const upstream = { path: call.path, headers: call.headers, body: JSON.parse(call.body) as unknown };
      expectFile(join(directory, `${name}.upstream.json`), `${JSON.stringify(upstream, null, 2)}\n`);

      const jsonReply = join(directory, `${name}.reply.json`);
      if (existsSync(jsonReply)) {
        const mapped = adapter.fromUpstream(readFileSync(jsonReply, 'utf8'), context);
        const body = normalize(JSON.parse(mapped.body)) as {
          usage?: unknown;
          choices: Array<{ finish_reason: string }>;
        };
        expectFile(join(directory, `${name}.client.json`), `${JSON.stringify(body, null, 2)}\n`);
        assert.deepEqual(mapped.summary.usage, body.usage, 'the summary books the usage the client sees');
        assert.equal(mapped.summary.finishReason, body.choices[0]?.finish_reason);
      }
      const sseReply = join(directory, `${name}.reply.sse`);
      if (existsSync(sseReply)) {
        const text = readFileSync(sseReply, 'utf8');
        const whole = mapStream(adapter, context, [text]);
        expectFile(join(directory, `${name}.client.sse`), `${whole.join('\n')}\n`);
        assert.deepEqual(mapStream(adapter, context, [...text]), whole, 'one character at a time');
        for (const seed of [1, 2, 3])
          assert.deepEqual(mapStream(adapter, context, randomPieces(text, seed)), whole, `random cuts, seed ${seed}`);
      }
    });
  }
}

/** The `write` of a translating stream mapper (form `chunks`), which only emits chunks: a framed write is a defect. */
export function unexpectedWrite(text: string): never {
  throw new Error(`a translating stream mapper wrote framed text: ${text.slice(0, 80)}`);
}
