import type { ServerResponse } from 'node:http';
import type { RequestContext } from '../context/request-context.js';
import type { ReplyFormat, StreamEnd, StreamEvents, StreamSink } from '../pipeline/front-door.js';
import { captureReply } from './reply-capture.js';
import { withResponseHeaders } from './response-headers.js';

/** The SSE comment chat clients get on silence. */
export const SSE_COMMENT_KEEPALIVE = ': keep-alive\n\n';

/**
 * A Server-Sent-Events response, whatever the protocol of its events. Headers go out with
 * the first write, or with the first keep-alive when the node stays silent for
 * `keepaliveMs` (so proxies with idle time-outs do not cut long reasoning); a keep-alive
 * follows every silence that long. Writes report a slow client (backpressure).
 */
export class SseResponse {
  private timer: NodeJS.Timeout | undefined;
  private waitingForDrain: Promise<void> | undefined;

  constructor(
    private readonly response: ServerResponse,
    private readonly context: RequestContext,
    private readonly keepaliveMs: number,
    /** The keep-alive to send, or what makes it (a protocol whose keep-alive is a numbered event). */
    private readonly keepaliveText: string | (() => string) = SSE_COMMENT_KEEPALIVE,
  ) {}

  get started(): boolean {
    return this.response.headersSent;
  }

  /** Starts the silence timer; call when the request is about to go to a node. */
  startKeepalive(): void {
    this.timer = setTimeout(this.sendKeepalive, this.keepaliveMs);
  }

  stopKeepalive(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Writes SSE text; returns a promise when the client is slow, to await before writing more.
   * `ascii`: the caller knows every character is ASCII, so it goes out as latin1 (the same
   * bytes) without its UTF-8 length counted and the text encoded (~30k instructions for the
   * kit's 6.5 KB stream).
   */
  write(text: string, ascii = false): Promise<void> | undefined {
    if (text === '') return this.waitingForDrain;
    this.timer?.refresh();
    this.startHeaders();
    captureReply(this.context, text);
    if (this.response.write(text, ascii ? 'latin1' : 'utf8')) return undefined;
    this.waitingForDrain ??= new Promise<void>((resolve) => {
      const done = () => {
        this.response.off('drain', done);
        this.response.off('close', done);
        this.waitingForDrain = undefined;
        resolve();
      };
      this.response.on('drain', done);
      this.response.on('close', done);
    });
    return this.waitingForDrain;
  }

  /**
   * Writes the last text and ends the response (`ascii` as for write), with `asciiTail` (ASCII
   * text, such as the chat door's `data: [DONE]`) after it. The two go out in one socket
   * write but are not joined: the text is usually the reader's flat string of the stream's
   * last batch (for the kit's stream, the whole 6.5 KB), and `text + asciiTail` is a new
   * string that V8 copies flat again when node writes it (the same bytes copied twice, a
   * copy's worth of garbage per stream).
   */
  end(text: string, ascii = false, asciiTail = ''): void {
    this.stopKeepalive();
    this.startHeaders();
    this.context.record.status ??= 200;
    captureReply(this.context, text);
    if (asciiTail !== '') captureReply(this.context, asciiTail);
    const encoding = ascii ? 'latin1' : 'utf8';
    if (asciiTail === '' || text === '') {
      this.response.end(text + asciiTail, encoding);
      return;
    }
    // Still one socket write: node:http corks the socket at the first write of a tick and
    // end() uncorks it. (An explicit cork() and uncork() around these two calls sent the
    // tail after the chunked terminator on Node 24.)
    this.response.write(text, encoding);
    this.response.end(asciiTail, 'latin1');
  }

  private readonly sendKeepalive = (): void => {
    if (this.response.writableEnded || this.response.destroyed) return;
    this.startHeaders();
    this.response.write(typeof this.keepaliveText === 'string' ? this.keepaliveText : this.keepaliveText());
    this.timer?.refresh();
  };

  private startHeaders(): void {
    if (this.response.headersSent) return;
    this.context.record.status = 200;
    this.response.writeHead(
      200,
      withResponseHeaders(this.context, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      }),
    );
    // No flushHeaders(): every caller writes right after, and the headers leave with it.
  }
}

/**
 * What every front door's stream sink does alike: it streams through one SseResponse, which
 * says whether anything went out and sends the keep-alives; the door frames the events.
 */
export abstract class SseStreamSink implements StreamSink {
  constructor(protected readonly sse: SseResponse) {}

  get started(): boolean {
    return this.sse.started;
  }

  startKeepalive(): void {
    this.sse.startKeepalive();
  }

  stopKeepalive(): void {
    this.sse.stopKeepalive();
  }

  abstract write(events: StreamEvents, format: ReplyFormat): Promise<void> | undefined;
  abstract end(end: StreamEnd): void;
  abstract fail(error: unknown, end: StreamEnd | undefined): void;
}
