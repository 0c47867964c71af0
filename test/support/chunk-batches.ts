import type { ChatCompletionChunk } from '../../src/protocol/openai/chat-response-types.js';
import { SseParser } from '../../src/streaming/sse-parser.js';
import type { SseRecord } from '../../src/streaming/stream-mapper.js';

/**
 * An internal stream written as text (`data: <chunk>\n\n` events, `[DONE]` left out), fed
 * in `pieces`, as the batches of chunk objects a door gets: the chunks each piece
 * completes (possibly none), the last batch with whatever the end of the text completes.
 */
export function chunkBatches(pieces: readonly string[]): ChatCompletionChunk[][] {
  const parser = new SseParser();
  const batches = pieces.map((piece) => {
    const batch: ChatCompletionChunk[] = [];
    parser.push(piece, (record) => add(batch, record));
    return batch;
  });
  const last: ChatCompletionChunk[] = batches.at(-1) ?? [];
  parser.end((record) => add(last, record));
  if (batches.length === 0 && last.length > 0) batches.push(last);
  return batches;
}

/** The chunks of an internal stream written as text, in one batch. */
export function chunksOfText(text: string): ChatCompletionChunk[] {
  return chunkBatches([text]).flat();
}

function add(batch: ChatCompletionChunk[], record: SseRecord): void {
  if (record.data !== '[DONE]') batch.push(JSON.parse(record.data) as ChatCompletionChunk);
}
