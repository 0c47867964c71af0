import type { Dispatcher } from 'undici';
import type { Cancellation } from './cancellation.js';

/** A node's response body as it arrives: read as text, iterated by chunk, drained or torn down. */
export interface UpstreamBody extends AsyncIterable<Buffer> {
  /**
   * The whole body as UTF-8 text; `undefined` once more than `maxBytes` arrived (the body is
   * then torn down and what was read is let go).
   */
  text(maxBytes?: number): Promise<string | undefined>;
  /** Reads and discards what is left (up to `limit` bytes, default no limit) so the connection can be reused. */
  dump(options?: { limit: number }): Promise<void>;
  /** Stops the response; the connection is closed, not reused. */
  destroy(error?: Error): void;
}

/** A node's reply as it starts: status, headers, and the body still to be read. */
export interface UpstreamResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: UpstreamBody;
}

/** Above this many bytes read from the node but not yet taken by the gateway, the socket is paused. */
const HIGH_WATER_MARK = 64 * 1024;
const DONE: IteratorResult<Buffer> = { done: true, value: undefined };

type Controller = Dispatcher.DispatchController;

/**
 * One request to a node through undici's `dispatch` handler interface. undici's
 * `request()` wraps the same calls in an async resource, a Node Readable for the body
 * and a consumer for `text()`; on the gateway's path (one JSON body, or a stream read
 * chunk by chunk by one reader) that machinery was a measurable share of each request.
 * The body here is a plain queue: chunks wait until read, the socket is paused above
 * 64 KB waiting (backpressure) and resumed as they are taken. The cancellation aborts
 * the request (before or after the response started); undici's own errors (connect,
 * header and body time-outs, sockets) reach the caller unchanged.
 */
export class UpstreamCall implements Dispatcher.DispatchHandler, UpstreamBody {
  readonly promise: Promise<UpstreamResponse>;
  private resolveResponse!: (response: UpstreamResponse) => void;
  private rejectResponse!: (error: unknown) => void;
  private controller: Controller | undefined;
  private started = false;
  private chunks: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: unknown = undefined;
  /** Discarding the rest (dump): chunks are dropped as they come, up to `dumpLimit` bytes. */
  private dumping = false;
  /** The gateway itself stopped the body (dump over its limit, destroy): the error that follows is expected. */
  private stoppedOnPurpose = false;
  private dumpLimit = Number.POSITIVE_INFINITY;
  private dumped = 0;
  private waiter: { resolve: (result: IteratorResult<Buffer>) => void; reject: (error: unknown) => void } | undefined;
  /** `text()` waiting for the end of the body. */
  private textWaiter: { resolve: (text: string | undefined) => void; reject: (error: unknown) => void } | undefined;
  private textLimit = Number.POSITIVE_INFINITY;
  private finished: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  private abortReason: unknown = undefined;
  private readonly onAbort = (): void => this.abort(this.cancellation.reason);

  constructor(private readonly cancellation: Cancellation) {
    this.promise = new Promise<UpstreamResponse>((resolve, reject) => {
      this.resolveResponse = resolve;
      this.rejectResponse = reject;
    });
    if (cancellation.aborted) this.abortReason = cancellation.reason;
    else cancellation.onAbort(this.onAbort);
  }

  // --- undici handler ---

  onRequestStart(controller: Controller): void {
    this.controller = controller;
    if (this.abortReason !== undefined) controller.abort(this.abortReason as Error);
  }

  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // undici calls this for each 1xx informational response (103 Early Hints…) before the
    // final one (Dispatcher.md, DispatchHandler): the reply is the final response.
    if (statusCode < 200) return;
    this.started = true;
    // undici's controller keeps the reply's raw header Buffers for as long as the reply runs
    // (~1.3 KiB per held stream, a Buffer per header name and value); they are parsed already.
    controller.rawHeaders = null;
    this.resolveResponse({ statusCode, headers, body: this });
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.dumping) {
      this.dumped += chunk.length;
      if (this.dumped > this.dumpLimit) this.stop(new Error('upstream body over the dump limit'));
      return;
    }
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter.resolve({ done: false, value: chunk });
      return;
    }
    this.chunks.push(chunk);
    this.queued += chunk.length;
    if (this.textWaiter !== undefined) {
      if (this.queued > this.textLimit) this.refuseText();
    } else if (this.queued > HIGH_WATER_MARK) controller.pause();
  }

  onResponseEnd(): void {
    this.ended = true;
    this.settle();
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve(DONE);
    this.textWaiter?.resolve(this.takeText());
    this.textWaiter = undefined;
    this.finished?.resolve();
  }

  onResponseError(controller: Controller | undefined, error: Error): void {
    this.failure = error;
    this.settle();
    if (!this.started) {
      this.rejectResponse(error);
      return;
    }
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(error);
    this.textWaiter?.reject(error);
    this.textWaiter = undefined;
    if (this.stoppedOnPurpose) this.finished?.resolve();
    else this.finished?.reject(error);
  }

  // --- body ---

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return {
      next: () => this.next(),
      return: () => {
        if (!this.ended) this.destroy();
        return Promise.resolve(DONE);
      },
    };
  }

  /** The whole body as UTF-8 text, in one promise that settles when the body has ended (see UpstreamBody.text). */
  text(maxBytes = Number.POSITIVE_INFINITY): Promise<string | undefined> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.queued > maxBytes) {
      this.chunks = [];
      this.queued = 0;
      this.stop(new Error('upstream body over the text limit'));
      return Promise.resolve(undefined);
    }
    if (this.ended) return Promise.resolve(this.takeText());
    this.textLimit = maxBytes;
    return new Promise<string | undefined>((resolve, reject) => {
      this.textWaiter = { resolve, reject };
      if (this.controller?.paused) this.controller.resume();
    });
  }

  /** The body outgrew `text`'s limit: what was read is dropped, the body torn down, `text` answers undefined. */
  private refuseText(): void {
    const waiter = this.textWaiter;
    this.textWaiter = undefined;
    this.chunks = [];
    this.queued = 0;
    this.stop(new Error('upstream body over the text limit'));
    waiter?.resolve(undefined);
  }

  /** The chunks queued so far, as one text; the queue is emptied. */
  private takeText(): string {
    const chunks = this.chunks;
    const size = this.queued;
    this.chunks = [];
    this.queued = 0;
    if (chunks.length === 0) return '';
    const [only] = chunks;
    return chunks.length === 1 && only !== undefined
      ? only.toString('utf8')
      : Buffer.concat(chunks, size).toString('utf8');
  }

  dump(options?: { limit: number }): Promise<void> {
    if (this.ended || this.failure !== undefined) return Promise.resolve();
    this.dumping = true;
    this.dumpLimit = options?.limit ?? Number.POSITIVE_INFINITY;
    this.dumped = this.queued;
    this.chunks = [];
    this.queued = 0;
    const promise = new Promise<void>((resolve, reject) => {
      this.finished = { resolve, reject };
    });
    if (this.dumped > this.dumpLimit) this.stop(new Error('upstream body over the dump limit'));
    else if (this.controller?.paused) this.controller.resume();
    return promise;
  }

  destroy(error?: Error): void {
    this.stop(error ?? new Error('upstream body destroyed'));
  }

  private next(): Promise<IteratorResult<Buffer>> {
    const chunk = this.chunks.shift();
    if (chunk !== undefined) {
      this.queued -= chunk.length;
      if (this.queued <= HIGH_WATER_MARK && this.controller?.paused) this.controller.resume();
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private stop(reason: Error): void {
    if (this.ended || this.failure !== undefined) return;
    this.stoppedOnPurpose = true;
    this.abort(reason);
  }

  private abort(reason: unknown): void {
    if (this.ended || this.failure !== undefined) return;
    if (this.controller === undefined) this.abortReason = reason;
    else this.controller.abort(reason as Error);
  }

  /** The call is over: the abort listener goes. */
  private settle(): void {
    this.cancellation.offAbort(this.onAbort);
  }
}
