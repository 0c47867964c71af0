import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SseRecord, StreamMapper } from '../providers/types.js';
import { emptySummary } from '../providers/types.js';
import { UpstreamEventReader, type ByteStream } from './upstream-event-reader.js';

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

/** A mapper that forwards every event's data and ends at [DONE]. */
function echoMapper(): StreamMapper {
  return {
    summary: emptySummary(),
    identity: { id: '', created: 0, model: 'm' },
    map(record: SseRecord, emit) {
      if (record.data === '[DONE]') return 'end';
      emit(record.data);
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
      text += batch.text;
      if (batch.done) break;
    }
    assert.equal(text, 'data: {"t":"é日本"}\n\n', `cut at byte ${cut}`);
  }
});

/** echoMapper that fails on an event `{"error":…}`, as a mapper does on a node's in-stream error. */
function failingMapper(): StreamMapper {
  const echo = echoMapper();
  return {
    ...echo,
    map(record, emit) {
      if (record.data.startsWith('{"error"')) throw new Error(`node error: ${record.data}`);
      return echo.map(record, emit);
    },
  };
}

test('after a first batch went out, events ahead of an in-stream error are returned, then the error', async () => {
  const reader = new UpstreamEventReader(
    body([Buffer.from('data: {"n":1}\n\n'), Buffer.from('data: {"n":2}\n\ndata: {"n":3}\n\ndata: {"error":"overloaded"}\n\ndata: {"n":4}\n\n')]),
    failingMapper(),
  );
  assert.deepEqual(await reader.read(), { text: 'data: {"n":1}\n\n', done: false });
  assert.deepEqual(await reader.read(), { text: 'data: {"n":2}\n\ndata: {"n":3}\n\n', done: false });
  await assert.rejects(reader.read(), /node error: \{"error":"overloaded"\}/);
});

test('an in-stream error in the first batch is thrown at once and nothing of it is returned', async () => {
  const reader = new UpstreamEventReader(body([Buffer.from('data: {"n":1}\n\ndata: {"error":"overloaded"}\n\n')]), failingMapper());
  await assert.rejects(reader.read(), /node error/);
});
