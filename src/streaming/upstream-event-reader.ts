import type { StreamMapper } from '../providers/types.js';
import { SseParser } from './sse-parser.js';

/** A node's response body: an async iterable of byte chunks that can be torn down. */
export interface ByteStream extends AsyncIterable<Buffer> {
  destroy(error?: Error): unknown;
}

/** SSE text for the client, mapped from one or more network chunks of the node's stream. */
export interface MappedBatch {
  /** Framed `data: …\n\n` events, possibly empty. */
  readonly text: string;
  /** The node finished its stream (`[DONE]`, its end event, or end of body). */
  readonly done: boolean;
}

/**
 * Pulls a node's stream one network chunk at a time and maps it through the adapter.
 * Pull-based: nothing is read until the client side asks, which is the backpressure.
 */
export class UpstreamEventReader {
  private readonly iterator: AsyncIterator<Buffer>;
  private readonly decoder = new TextDecoder();
  private readonly parser = new SseParser();
  private done = false;
  private out = '';
  private readonly emit = (chunkJson: string): void => {
    this.out += `data: ${chunkJson}\n\n`;
  };
  private readonly onRecord = (record: { event: string | undefined; data: string }): void => {
    if (this.done) return;
    if (this.mapper.map(record, this.emit) === 'end') this.done = true;
  };

  constructor(
    private readonly body: ByteStream,
    readonly mapper: StreamMapper,
  ) {
    this.iterator = body[Symbol.asyncIterator]();
  }

  /** Reads until at least one event is mapped or the stream ends. Throws on node or network errors. */
  async read(): Promise<MappedBatch> {
    while (!this.done) {
      const next = await this.iterator.next();
      if (next.done) {
        this.parser.end(this.onRecord);
        this.done = true;
        break;
      }
      this.parser.push(this.decoder.decode(next.value, { stream: true }), this.onRecord);
      if (this.out !== '') break;
    }
    const text = this.out;
    this.out = '';
    if (this.done) this.release();
    return { text, done: this.done };
  }

  /** Stops reading and releases the connection (client gone, or the stream finished). */
  release(): void {
    this.done = true;
    this.body.destroy();
  }
}
