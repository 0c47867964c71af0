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
