import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SseRecord, StreamMapper } from './stream-mapper.js';
import { emptySummary } from '../providers/types.js';
import { gatewayError } from '../errors/gateway-error.js';
import { UpstreamEventReader, type ByteStream } from './upstream-event-reader.js';
import { textOf } from './stream-events.js';

/** A node body delivering `chunks` one by one. */
function body(chunks: Buffer[]): ByteStream {
  return {
    async *[Symbol.asyncIterator]() {
      yield* chunks;
    },
    destroy: () => undefined,
    dump: async () => undefined,
  };
}

/** A mapper that forwards every event's data (framed) and ends at [DONE]. */
function echoMapper(): StreamMapper {
  return {
    form: 'text',
    summary: emptySummary(),
    identity: { id: '', created: 0, model: 'm' },
    map(record: SseRecord, _emit, write) {
      if (record.data === '[DONE]') return 'end';
      write(`data: ${record.data}\n\n`);
      return 'more';
    },
  };
}

test('a UTF-8 character split across network chunks arrives whole', async () => {
  const bytes = Buffer.from('data: {"t":"é日本"}\n\ndata: [DONE]\n\n');
  for (let cut = 1; cut < bytes.length; cut++) {
    const reader = new UpstreamEventReader(body([bytes.subarray(0, cut), bytes.subarray(cut)]), echoMapper());
    let text = '';
    for (let batch = await reader.read(); ; batch = await reader.read()) {
      text += textOf(batch);
      if (batch.done) break;
    }
    assert.equal(text, 'data: {"t":"é日本"}\n\n', `cut at byte ${cut}`);
  }
});

/** echoMapper writing each event as the node's own text (WriteText's `nodeText`). */
function nodeTextMapper(): StreamMapper {
  const echo = echoMapper();
  return {
    ...echo,
    map(record, emit, write) {
      return echo.map(record, emit, (text) => write(text, true));
    },
  };
}

test('a batch is marked ASCII only when every byte of the node was and the mapper wrote only its text', async () => {
  const read = async (chunks: string[], mapper: StreamMapper) => {
    const reader = new UpstreamEventReader(body(chunks.map((chunk) => Buffer.from(chunk))), mapper);
    const batches = [];
    for (let batch = await reader.read(); ; batch = await reader.read()) {
      batches.push(batch.form === 'text' ? batch.ascii : undefined);
      if (batch.done) break;
    }
    return batches;
  };
  assert.deepEqual(await read(['data: {"t":"a"}\n\n', 'data: [DONE]\n\n'], nodeTextMapper()), [true, true]);
  // A character beyond ASCII, even in a later chunk or before the end of an event, and for good.
  assert.deepEqual(
    await read(
      ['data: {"t":"a"}\n\n', 'data: {"t":"é', '"}\n\ndata: {"t":"b"}\n\n', 'data: [DONE]\n\n'],
      nodeTextMapper(),
    ),
    [true, false, false],
  );
  // Text the mapper built itself is never taken for ASCII (the last batch, empty, is).
  assert.deepEqual(await read(['data: {"t":"a"}\n\n', 'data: [DONE]\n\n'], echoMapper()), [false, true]);
});

/** echoMapper that fails on an event `{"error":…}`, as a mapper does on a node's in-stream error. */
function failingMapper(): StreamMapper {
  const echo = echoMapper();
  return {
    ...echo,
    map(record, emit, write) {
      if (record.data.startsWith('{"error"'))
        throw gatewayError('bad_gateway', { params: { reason: `node error: ${record.data}` } });
      return echo.map(record, emit, write);
    },
  };
}

test('after a first batch went out, events ahead of an in-stream error are returned, then the error', async () => {
  const reader = new UpstreamEventReader(
    body([
      Buffer.from('data: {"n":1}\n\n'),
      Buffer.from('data: {"n":2}\n\ndata: {"n":3}\n\ndata: {"error":"overloaded"}\n\ndata: {"n":4}\n\n'),
    ]),
    failingMapper(),
  );
  // The echo mapper's text is its own making (not marked as the node's): not known to be ASCII.
  assert.deepEqual(await reader.read(), { form: 'text', text: 'data: {"n":1}\n\n', ascii: false, done: false });
  assert.deepEqual(await reader.read(), {
    form: 'text',
    text: 'data: {"n":2}\n\ndata: {"n":3}\n\n',
    ascii: false,
    done: false,
  });
  await assert.rejects(reader.read(), /node error: \{"error":"overloaded"\}/);
});

test('an in-stream error in the first batch is thrown at once and nothing of it is returned', async () => {
  const reader = new UpstreamEventReader(
    body([Buffer.from('data: {"n":1}\n\ndata: {"error":"overloaded"}\n\n')]),
    failingMapper(),
  );
  await assert.rejects(reader.read(), /node error/);
});

test("a mapper that breaks (a bug, not a node error) is a 500 internal_error, never the node's failure", async () => {
  const broken: StreamMapper = {
    ...echoMapper(),
    map() {
      throw new RangeError('Maximum call stack size exceeded');
    },
  };
  const reader = new UpstreamEventReader(body([Buffer.from('data: {"n":1}\n\n')]), broken);
  await assert.rejects(reader.read(), (error: unknown) => {
    const failure = error as { code?: string; status?: number; retryable?: boolean };
    return failure.code === 'internal_error' && failure.status === 500 && failure.retryable === false;
  });
});

test("an event over the size limit ends the stream as the node's failure, whether it came whole or in pieces", async () => {
  const big = `data: ${'x'.repeat(5000)}\n\n`;
  for (const chunks of [[big], big.match(/[^]{1,700}/g) ?? []]) {
    const reader = new UpstreamEventReader(body(chunks.map((chunk) => Buffer.from(chunk))), echoMapper(), 4096);
    await assert.rejects(reader.read(), (error: unknown) => {
      const failure = error as { code?: string; retryable?: boolean; message?: string };
      return (
        failure.code === 'bad_gateway' &&
        failure.retryable === true &&
        /more than 4096 characters/.test(failure.message ?? '')
      );
    });
  }
});

/** A mapper of form `chunks` that makes one chunk of every event's data and ends at [DONE]. */
function chunkMapper(): StreamMapper {
  return {
    form: 'chunks',
    summary: emptySummary(),
    identity: { id: '', created: 0, model: 'm' },
    map(record: SseRecord, emit) {
      if (record.data === '[DONE]') return 'end';
      emit({ id: record.data, object: 'chat.completion.chunk', created: 0, model: 'm', choices: [] });
      return 'more';
    },
  };
}

test('a mapper of form chunks gives batches of chunk objects, whatever the network cuts', async () => {
  const text = 'data: a\n\ndata: b\n\ndata: c\n\ndata: [DONE]\n\n';
  for (let cut = 1; cut < text.length; cut++) {
    const reader = new UpstreamEventReader(
      body([Buffer.from(text.slice(0, cut)), Buffer.from(text.slice(cut))]),
      chunkMapper(),
    );
    const ids: string[] = [];
    for (let batch = await reader.read(); ; batch = await reader.read()) {
      assert.equal(batch.form, 'chunks');
      if (batch.form === 'chunks') ids.push(...batch.chunks.map((chunk) => chunk.id));
      if (batch.done) break;
    }
    assert.deepEqual(ids, ['a', 'b', 'c'], `cut at ${cut}`);
  }
});

test('a mapper that gives the other form than it declared is an internal error', async () => {
  const wrong: StreamMapper = {
    ...chunkMapper(),
    map(record, _emit, write) {
      write(`data: ${record.data}\n\n`);
      return 'more';
    },
  };
  const reader = new UpstreamEventReader(body([Buffer.from('data: a\n\n')]), wrong);
  await assert.rejects(reader.read(), (error: unknown) => (error as { code?: string }).code === 'internal_error');
});
