import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mock, test } from 'node:test';
import type { ModelConfig, NodeConfig } from '../../config/gateway-config.js';
import { isGatewayError } from '../../errors/gateway-error.js';
import type { SseRecord, StreamMapper } from '../../streaming/stream-mapper.js';
import type { CallContext } from '../types.js';
import { UpstreamEventReader } from '../../streaming/upstream-event-reader.js';
import { textOf, type StreamForm } from '../../streaming/stream-events.js';
import { randomPieces } from '../../../test/support/adapter-fixtures.js';
import { generatedStream } from '../../../test/support/openai-chunk-generator.js';
import { createStreamMapper } from './stream-mapper.js';
import { countedUsage } from '../../billing/booked-usage.js';

// Differential tests of the relay (runs of plain events passed through, only the events
// that must be read parsed) against the parsed path (every event parsed): over real and
// generated streams, cut into network chunks at random, the client must get the same
// chunks, the same error and the same summary and identity. The relay keeps the node's
// own text around the model id, so it agrees with itself byte for byte however the stream
// is cut; with the parsed path it agrees byte for byte except where that must serialize a
// chunk again (a model string not in compact form before `choices`), and then on the JSON.
// The relay reads no event it has no reason to: a damaged event, or a second `"model"` key,
// passes as the node sent it, so generated streams with those are left out here.
// The mapper of form `chunks` (for doors that map chunks) gives the same chunks as objects.

const node = { id: 'node-a', timeouts: { totalMs: 1 } } as NodeConfig;

// A mapper stamps `created` from the clock when the node's stream gives none, and the mappers
// compared here are built milliseconds apart: with the clock running, a second's boundary
// between two of them would make the same stream's identity differ. The clock stands still.
mock.timers.enable({ apis: ['Date'], now: 1_767_225_600_000 });

function context(clientModel: string, streamForm: StreamForm = 'text'): CallContext {
  return {
    requestId: 'req',
    correlationId: 'corr',
    clientModel,
    upstreamModel: 'upstream',
    node,
    model: {} as ModelConfig,
    outputCap: { tokens: 4096, contextBound: false },
    effort: undefined,
    stream: true,
    streamForm,
    retryOnStatus: new Set(),
  };
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

/** The `data:` records of an SSE text (one event per `data:` line). */
function records(sse: string): SseRecord[] {
  return sse
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => ({ event: undefined, data: line.slice(6) }));
}

function fixtureStreams(): Array<{ name: string; text: string }> {
  // (openai/__fixtures__/bench-burst.sse is the benchmark kit's mock stream.)
  const streams: Array<{ name: string; text: string }> = [];
  for (const protocol of ['openai', 'anthropic', 'gemini']) {
    const folder = join(import.meta.dirname, '..', protocol, '__fixtures__');
    for (const name of readdirSync(folder)) {
      // OpenAI-protocol streams: the node's for openai, what the client gets for the others.
      if (protocol === 'openai' ? name.endsWith('.sse') : name.endsWith('.client.sse'))
        streams.push({ name: `${protocol}/${name}`, text: readFileSync(join(folder, name), 'utf8') });
    }
  }
  return streams;
}

/** `records` as a node would send them: `data:` lines (one per line of the data), LF framing. */
function sseText(records: readonly SseRecord[]): string {
  return records
    .map(
      (record) =>
        `${record.event === undefined ? '' : `event: ${record.event}\n`}${record.data
          .split('\n')
          .map((line) => `data: ${line}`)
          .join('\n')}\n\n`,
    )
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
      text += textOf(batch);
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
 * What a summary says, read through its accessors. The character counts are what an estimate
 * is made of: with the node's usage booked (countedUsage) they are never read, and the relay
 * lets go of the text it kept for them when the stream ends, so they are compared only then.
 */
function summaryOf(mapper: StreamMapper) {
  const { usage, finishReason } = mapper.summary;
  if (countedUsage(usage) !== undefined) return { usage, finishReason };
  const { reasoningCharacters, contentCharacters } = mapper.summary;
  return { usage, finishReason, reasoningCharacters, contentCharacters };
}

/** Streams a node could really send: JSON objects (or the end), one model key each, naming one model throughout. */
function isWellFormed(records: readonly SseRecord[]): boolean {
  const models = new Set<unknown>();
  return records.every((record) => {
    if (record.data === '[DONE]') return true;
    try {
      const chunk = JSON.parse(record.data) as unknown;
      if (chunk === null || typeof chunk !== 'object' || Array.isArray(chunk)) return false;
      if ('model' in chunk) models.add((chunk as { model: unknown }).model);
    } catch {
      return false;
    }
    return (record.data.match(/"model"/g) ?? []).length <= 1 && models.size <= 1;
  });
}

/**
 * The stream read through an UpstreamEventReader three ways: relayed whole, relayed cut
 * into network chunks at random, and parsed event by event (cut alike). The same bytes
 * whole and cut; only a stream that fails may differ in how much of it went out before the
 * error (nothing, when the error came in the first batch: another node could still be
 * tried), never in the error. The same chunks as parsing (assertSameChunks), the same
 * summary and identity throughout.
 */
async function assertSameThroughReader(
  records: readonly SseRecord[],
  clientModel: string,
  seed: number,
  label: string,
): Promise<void> {
  const text = sseText(records.filter((record) => !record.data.includes('\r')));
  const whole = [Buffer.from(text)];
  const cut = randomPieces(text, seed, 1 + (seed % 9)).map((piece) => Buffer.from(piece));
  const relayWhole = createStreamMapper(context(clientModel));
  const relayCut = createStreamMapper(context(clientModel));
  const parsed = createStreamMapper(context(clientModel), { relay: false });
  assert.ok(relayWhole.relayEvents, 'the mapper relays');
  assert.equal(parsed.relayEvents, undefined);
  const viaRelayWhole = await readThrough(relayWhole, whole);
  const viaRelayCut = await readThrough(relayCut, cut);
  const failure = errorOf(viaRelayWhole);
  if (failure === '') assert.equal(viaRelayCut, viaRelayWhole, `${label}: cut into ${cut.length} network chunks`);
  else assert.equal(errorOf(viaRelayCut), failure, `${label}: the same error, cut into ${cut.length} network chunks`);
  const viaParse = await readThrough(parsed, cut);
  assert.equal(errorOf(viaParse), errorOf(viaRelayCut), `${label}: the same error as parsing`);
  assertSameChunks(
    eventsOf(viaRelayCut.slice(0, viaRelayCut.length - errorOf(viaRelayCut).length)),
    eventsOf(viaParse.slice(0, viaParse.length - errorOf(viaParse).length)),
    `${label}: against the parsed path`,
  );
  if (errorOf(viaParse) === '') {
    assert.deepEqual(summaryOf(relayCut), summaryOf(parsed), `${label}: summary`);
    assert.deepEqual(summaryOf(relayWhole), summaryOf(parsed), `${label}: summary whole`);
  }
  assert.deepEqual(relayCut.identity, parsed.identity, `${label}: identity`);
  const objects = createStreamMapper(context(clientModel, 'chunks'));
  assert.equal(objects.form, 'chunks');
  const viaObjects = await readThrough(objects, cut);
  assert.equal(errorOf(viaObjects), errorOf(viaParse), `${label}: the same error as objects`);
  // (A data of several lines goes out of the text paths as the node sent it, line ends and all, so
  // their events cannot be cut apart as the client's text: those streams are compared on the rest.)
  if (!records.some((record) => record.data.includes('\n')))
    assertSameChunks(
      eventsOf(viaObjects.slice(0, viaObjects.length - errorOf(viaObjects).length)),
      eventsOf(viaParse.slice(0, viaParse.length - errorOf(viaParse).length)),
      `${label}: objects against the parsed path`,
    );
  if (errorOf(viaParse) === '') assert.deepEqual(summaryOf(objects), summaryOf(parsed), `${label}: summary of objects`);
  assert.deepEqual(objects.identity, parsed.identity, `${label}: identity of objects`);
}

test('the relay through the reader: the same bytes however cut, the same chunks as parsing: recorded streams', async () => {
  for (const [index, { name, text }] of fixtureStreams().entries()) {
    for (const clientModel of ['client-model', 'gpt-4o-mini', 'gpt-4o-mini-2024-07-18', 'qw"en\\3']) {
      await assertSameThroughReader(records(text), clientModel, index + 1, `${name} as ${clientModel}`);
    }
  }
});

test('the relay through the reader: the same bytes however cut, the same chunks as parsing: generated streams (seeded)', async () => {
  let checked = 0;
  for (let seed = 1; seed <= 20_000; seed++) {
    const { records, clientModel } = generatedStream(seed);
    if (!isWellFormed(records)) continue;
    checked++;
    await assertSameThroughReader(records, clientModel, seed, `seed ${seed}`);
  }
  assert.ok(checked > 100, `${checked} well-formed generated streams`);
});

test('the relay counts the text of a long stream without usage as parsing does, however much it relayed unread', async () => {
  const chunk = (delta: Record<string, string>, finish: string | null = null) =>
    JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const events: SseRecord[] = [{ event: undefined, data: chunk({ role: 'assistant', content: '' }) }];
  for (let index = 0; index < 400; index++) {
    const delta: Record<string, string> =
      index < 100 ? { reasoning_content: `thought ${index} ` } : { content: `wörd ${index} ` };
    events.push({ event: undefined, data: chunk(delta) });
  }
  events.push({ event: undefined, data: chunk({}, 'stop') }, { event: undefined, data: '[DONE]' });
  await assertSameThroughReader(events, 'gpt-4o-mini', 7, 'long stream without usage');
  const relay = createStreamMapper(context('gpt-4o-mini'));
  await readThrough(relay, [Buffer.from(sseText(events))]);
  assert.ok(relay.summary.contentCharacters > (8 * 1024) / 4);
  assert.ok(relay.summary.reasoningCharacters > 0);
});

test('a slow stream, an event a read, keeps at most four of its relayed events unread and counts the rest as parsing does', async () => {
  const chunk = (content: string) =>
    JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    });
  const events: SseRecord[] = [{ event: undefined, data: chunk('') }];
  for (let index = 0; index < 30; index++) events.push({ event: undefined, data: chunk(`wörd ${index} `) });
  const relay = createStreamMapper(context('gpt-4o-mini'));
  // One read per event, and no end yet: the stream is still held.
  await readThrough(
    relay,
    events.map((event) => Buffer.from(sseText([event]))),
  );
  const kept = (relay.summary as unknown as { uncountedRuns: number }).uncountedRuns;
  assert.ok(kept <= 4, `${kept} relayed runs kept unread`);
  const expected = events.slice(1).reduce((sum, _event, index) => sum + `wörd ${index} `.length, 0);
  assert.equal(summaryOf(relay).contentCharacters, expected);
});
