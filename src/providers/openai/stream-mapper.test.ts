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

// Differential test of the scanned path (ChunkScanner) against the parsed one: over real and
// generated streams, both mappers must emit the same texts, throw the same errors and end
// with the same summary and identity.

const node = { id: 'node-a', timeouts: { totalMs: 1 } } as NodeConfig;

function context(clientModel: string): CallContext {
  return {
    requestId: 'req', correlationId: 'corr', clientModel, upstreamModel: 'upstream', node, model: {} as ModelConfig,
    effort: undefined, stream: true, retryOnStatus: new Set(),
  };
}

/** What a mapper did with one event. */
function outcome(map: () => string[]): string {
  try {
    return JSON.stringify(map());
  } catch (error) {
    return isGatewayError(error) ? `throws ${error.code}: ${error.message}` : `throws ${String(error)}`;
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
    assert.equal(viaScan, viaParse, `${label}, event ${index}: ${record.data}`);
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

/**
 * The same events: the same text, or else the same JSON (a chunk whose top-level model
 * follows its choices is swapped in place on the plain-event path, and parsed and
 * serialized again on the parsed one, which loses the node's whitespace and turns a
 * number too large for a double into null).
 */
function assertSameEvents(actual: string, expected: string, where: string): void {
  const actualEvents = actual.split('\n\n');
  const expectedEvents = expected.split('\n\n');
  assert.equal(actualEvents.length, expectedEvents.length, `${where}: events\n${actual}\n---\n${expected}`);
  for (const [index, event] of actualEvents.entries()) {
    const other = expectedEvents[index] as string;
    if (event === other) continue;
    assert.ok(event.startsWith('data: ') && other.startsWith('data: '), `${where}, event ${index}: ${event} | ${other}`);
    assert.equal(JSON.stringify(JSON.parse(event.slice(6))), JSON.stringify(JSON.parse(other.slice(6))), `${where}, event ${index}`);
  }
}

/** The stream in `pieces` read by the plain-event path and by the record path with every event parsed: same text, summary and identity. */
async function assertSameThroughReader(records: readonly SseRecord[], clientModel: string, seed: number, label: string): Promise<void> {
  const text = sseText(records.filter((record) => !record.data.includes('\r')));
  const bytes = Buffer.from(text);
  const cuts = [...randomPieces(text, seed, 1 + (seed % 9))].map((piece) => Buffer.from(piece));
  for (const pieces of [[bytes], cuts]) {
    const plain = createStreamMapper(context(clientModel));
    assert.ok(plain.mapPlainEvent, 'the scanning mapper has the plain-event path');
    const parsed = createStreamMapper(context(clientModel), { scan: false });
    assert.equal(parsed.mapPlainEvent, undefined);
    const viaPlain = await readThrough(plain, pieces);
    const viaParse = await readThrough(parsed, pieces);
    const where = `${label}, ${pieces.length} piece(s)`;
    assertSameEvents(viaPlain, viaParse, where);
    assert.deepEqual(plain.summary, parsed.summary, `${where}: summary`);
    assert.deepEqual(plain.identity, parsed.identity, `${where}: identity`);
  }
}

test('the plain-event path (events read where they lie) gives what parsing every event gives: recorded streams', async () => {
  for (const [index, { name, text }] of fixtureStreams().entries()) {
    for (const clientModel of ['client-model', 'gpt-4o-mini', 'gpt-4o-mini-2024-07-18', 'qw"en\\3']) {
      await assertSameThroughReader(records(text), clientModel, index + 1, `${name} as ${clientModel}`);
    }
  }
});

test('the plain-event path gives what parsing every event gives: generated streams (seeded), whole and cut at random', async () => {
  for (let seed = 1; seed <= 1500; seed++) {
    const { records, clientModel } = generatedStream(seed);
    await assertSameThroughReader(records, clientModel, seed, `seed ${seed}`);
  }
});
