/**
 * Where a relayed stream goes. Implemented by the HTTP layer; the pipeline never
 * formats HTTP itself.
 */
export interface StreamSink {
  /** True once anything (headers, a keep-alive) reached the client: errors can then only be in-stream events. */
  readonly started: boolean;
  /** Writes framed SSE text; returns a promise when the client is slow, to be awaited before writing more. */
  write(text: string): Promise<void> | undefined;
  /** Writes the last text and ends the response. */
  finish(text: string): void;
  /** Ends the stream with one `data: {"error": …}` event in the spec's format (PRODUCT.md decision 4). */
  fail(error: unknown): void;
}
