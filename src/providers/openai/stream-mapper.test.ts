import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ModelConfig, NodeConfig } from '../../config/gateway-config.js';
import { isGatewayError } from '../../errors/gateway-error.js';
import type { CallContext, SseRecord, StreamMapper } from '../types.js';
import { UpstreamEventReader } from '../../streaming/upstream-event-reader.js';
import { randomPieces } from '../../../test/support/adapter-fixtures.js';
import { generatedStream } from '../../../test/support/openai-chunk-generator.js';
import { createStreamMapper } from './stream-mapper.js';

// Differential tests of the scanned paths (ChunkScanner; by record and by plain event read
// in place) against the parsed one: over real and generated streams, the mappers must emit
// the same chunks, throw the same errors and end with the same summary and identity. The
// scanned paths keep the node's own text around the model id, so they agree with each
// other byte for byte however the stream is cut into network chunks; with the parsed path
// they agree byte for byte except where it must serialize a chunk again (a model string
// not in compact form before `choices`), and then on the JSON.

const node = { id: 'node-a', timeouts: { totalMs: 1 } } as NodeConfig;

function context(clientModel: string): CallContext {
  return {
    requestId: 'req', correlationId: 'corr', clientModel, upstreamModel: 'upstream', node, model: {} as ModelConfig,
    outputCap: { tokens: 4096, contextBound: false }, effort: undefined, stream: true, retryOnStatus: new Set(),
  };
}

/** What a mapper did with one event: the signal and the chunks, or the error. */
function outcome(map: () => string[]): string[] {
  try {
    return map();
  } catch (error) {
    return [isGatewayError(error) ? `throws ${error.code}: ${error.message}` : `throws ${String(error)}`];
  }
}

/**
 * The same chunk texts, or the same JSON where the parsed path serialized a chunk again
 * (which also turns a number too large for a double into null).
 */
function assertSameChunks(actual: readonly string[], expected: readonly string[], where: string): void {
  assert.equal(actual.length, expected.length, `${where}: ${JSON.stringify(actual)} | ${JSON.stringify(expected)}`);
  for (const [index, chunk] of actual.entries()) {
    const other = expected[index] as string;
    if (chunk === other) continue;
    assert.ok(!chunk.startsWith('throws') && !other.startsWith('throws'), `${where}: ${chunk} | ${other}`);
    assert.equal(JSON.stringify(JSON.parse(chunk)), JSON.stringify(JSON.parse(other)), `${where}, chunk ${index}`);
  }
}

/** Runs both mappers over `records`; fails on the first event where they differ. */
function assertSamePaths(records: readonly SseRecord[], clientModel: string, label: string): void {
  const scanned = createStreamMapper(context(clientModel));
  const parsed = createStreamMapper(context(clientModel), { scan: false });
  for (const [index, record] of records.entries()) {
    const viaScan = outcome(() => {
      const out: string[] = [];
      out.push(scanned.map(record, (json) => out.push(json)));
      return out;
    });
    const viaParse = outcome(() => {
      const out: string[] = [];
      out.push(parsed.map(record, (json) => out.push(json)));
      return out;
    });
    assertSameChunks(viaScan, viaParse, `${label}, event ${index}: ${record.data}`);
    assert.deepEqual(scanned.summary, parsed.summary, `${label}, summary after event ${index}: ${record.data}`);
    assert.deepEqual(scanned.identity, parsed.identity, `${label}, identity after event ${index}: ${record.data}`);
  }
}

/** The `data:` records of an SSE text (one event per `data:` line). */
function records(sse: string): SseRecord[] {
  return sse.split('\n').filter((line) => line.startsWith('data: ')).map((line) => ({ event: undefined, data: line.slice(6) }));
}

function fixtureStreams(): Array<{ name: string; text: string }> {
  // (openai/__fixtures__/bench-burst.sse is the benchmark kit's mock stream.)
  const streams: Array<{ name: string; text: string }> = [];
  for (const protocol of ['openai', 'anthropic', 'gemini']) {
    const folder = join(import.meta.dirname, '..', protocol, '__fixtures__');
    for (const name of readdirSync(folder)) {
      // OpenAI-protocol streams: the node's for openai, what the client gets for the others.
      if (protocol === 'openai' ? name.endsWith('.sse') : name.endsWith('.client.sse')) streams.push({ name: `${protocol}/${name}`, text: readFileSync(join(folder, name), 'utf8') });
    }
  }
  return streams;
}

test('scanned and parsed paths agree on the recorded streams', () => {
  for (const { name, text } of fixtureStreams()) {
    for (const clientModel of ['client-model', 'gpt-4o-mini', 'Qwen/Qwen3-32B', 'gpt-4o-mini-2024-07-18', 'qwen3']) {
      assertSamePaths(records(text), clientModel, `${name} as ${clientModel}`);
    }
  }
});

test('scanned and parsed paths agree on generated streams (seeded)', () => {
  for (let seed = 1; seed <= 1500; seed++) {
    const { records, clientModel } = generatedStream(seed);
    assertSamePaths(records, clientModel, `seed ${seed}`);
  }
});

test('the scanner reads content with escapes and keys inside strings as JSON.parse does', () => {
  const head = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":';
  const tail = ',"logprobs":null,"finish_reason":null}]}';
  const contents = ['"a\\u00e9b"', '"\\"usage\\":{\\"total_tokens\\":9}"', '"\\ud83d\\ude00 \\\\"', '"say \\"error\\""', '"x","reasoning":null', '"finish_reason"'];
  const stream = [{ event: undefined, data: `${head}{"role":"assistant"}${tail}` }];
  for (const content of contents) stream.push({ event: undefined, data: `${head}{"content":${content}}${tail}` });
  stream.push({ event: undefined, data: `${head}{}${tail.replace('"finish_reason":null', '"finish_reason":"stop"')}` });
  assertSamePaths(stream, 'client', 'escapes');
  const mapper = createStreamMapper(context('client'));
  for (const record of stream) mapper.map(record, () => undefined);
  assert.equal(mapper.summary.contentCharacters, 'aéb'.length + '"usage":{"total_tokens":9}'.length + '😀 \\'.length + 'say "error"'.length + 1 + 'finish_reason'.length);
  assert.equal(mapper.summary.finishReason, 'stop');
});

/** `records` as a node would send them: `data:` lines (one per line of the data), LF framing. */
function sseText(records: readonly SseRecord[]): string {
  return records
    .map((record) => `${record.event === undefined ? '' : `event: ${record.event}\n`}${record.data.split('\n').map((line) => `data: ${line}`).join('\n')}\n\n`)
    .join('');
}

/** Everything the client would get through an UpstreamEventReader fed `pieces`, or the error it ends with. */
async function readThrough(mapper: StreamMapper, pieces: readonly Buffer[]): Promise<string> {
  const body = {
    async *[Symbol.asyncIterator]() {
      yield* pieces;
    },
    destroy: () => undefined,
    dump: async () => undefined,
  };
  const reader = new UpstreamEventReader(body, mapper);
  let text = '';
  try {
    for (let batch = await reader.read(); ; batch = await reader.read()) {
      text += batch.text;
      if (batch.done) return text;
    }
  } catch (error) {
    return `${text}\nthrows ${isGatewayError(error) ? `${error.code}: ${error.message}` : String(error)}`;
  }
}

/** The events of a client's SSE text (the `data: ` taken off), and the error line if it ended with one. */
function eventsOf(sse: string): string[] {
  return sse.split('\n\n').map((event) => (event.startsWith('data: ') ? event.slice(6) : event.trim()));
}

/** The error a client's text ends with (the `throws …` line readThrough adds), or ''. */
function errorOf(text: string): string {
  const at = text.lastIndexOf('\nthrows ');
  return at === -1 ? '' : text.slice(at);
}

/**
 * The stream read through an UpstreamEventReader three ways: by the scanning mapper whole
 * (plain events read in place), by the same cut into network chunks at random, and cut
 * alike with its plain-event path taken away (every event cut out as a record). The same
 * bytes; only a stream that fails may differ whole and cut, in how much of it went out
 * before the error (nothing, when the error came in the first batch: another node could
 * still be tried), never in the error. Every event parsed gives the same chunks
 * (assertSameChunks). The same summary and identity throughout.
 */
async function assertSameThroughReader(records: readonly SseRecord[], clientModel: string, seed: number, label: string): Promise<void> {
  const text = sseText(records.filter((record) => !record.data.includes('\r')));
  const whole = [Buffer.from(text)];
  const cut = randomPieces(text, seed, 1 + (seed % 9)).map((piece) => Buffer.from(piece));
  const plainWhole = createStreamMapper(context(clientModel));
  const plainCut = createStreamMapper(context(clientModel));
  const scanned = createStreamMapper(context(clientModel));
  const byRecord: StreamMapper = { map: scanned.map, summary: scanned.summary, identity: scanned.identity };
  const parsed = createStreamMapper(context(clientModel), { scan: false });
  assert.ok(plainWhole.mapPlainEvent, 'the scanning mapper has the plain-event path');
  assert.equal(parsed.mapPlainEvent, undefined);
  const viaPlainWhole = await readThrough(plainWhole, whole);
  const viaPlainCut = await readThrough(plainCut, cut);
  assert.equal(await readThrough(byRecord, cut), viaPlainCut, `${label}: every event as a record`);
  const failure = errorOf(viaPlainWhole);
  if (failure === '') assert.equal(viaPlainCut, viaPlainWhole, `${label}: cut into ${cut.length} network chunks`);
  else assert.equal(errorOf(viaPlainCut), failure, `${label}: the same error, cut into ${cut.length} network chunks`);
  const viaParse = await readThrough(parsed, cut);
  assertSameChunks(eventsOf(viaPlainCut), eventsOf(viaParse), `${label}: against the parsed path`);
  for (const mapper of [plainCut, scanned, parsed]) {
    assert.deepEqual(mapper.summary, plainCut.summary, `${label}: summary`);
    assert.deepEqual(mapper.identity, plainCut.identity, `${label}: identity`);
  }
  if (failure === '') {
    assert.deepEqual(plainWhole.summary, plainCut.summary, `${label}: summary whole and cut`);
    assert.deepEqual(plainWhole.identity, plainCut.identity, `${label}: identity whole and cut`);
  }
}

test('scanned paths through the reader: the same bytes however cut, the same chunks as parsing: recorded streams', async () => {
  for (const [index, { name, text }] of fixtureStreams().entries()) {
    for (const clientModel of ['client-model', 'gpt-4o-mini', 'gpt-4o-mini-2024-07-18', 'qw"en\\3']) {
      await assertSameThroughReader(records(text), clientModel, index + 1, `${name} as ${clientModel}`);
    }
  }
});

test('scanned paths through the reader: the same bytes however cut, the same chunks as parsing: generated streams (seeded)', async () => {
  for (let seed = 1; seed <= 1500; seed++) {
    const { records, clientModel } = generatedStream(seed);
    await assertSameThroughReader(records, clientModel, seed, `seed ${seed}`);
  }
});
