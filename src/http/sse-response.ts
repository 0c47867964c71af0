import type { ServerResponse } from 'node:http';
import { asGatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../pipeline/request-context.js';
import type { StreamSink } from '../pipeline/stream-sink.js';
import { errorEnvelopeJson } from './error-envelope.js';
import { withResponseHeaders } from './response-headers.js';

const KEEPALIVE = ': keep-alive\n\n';

/**
 * A Server-Sent-Events response. Headers go out with the first event, or with the first
 * keep-alive comment when the node stays silent for `keepaliveMs` (so proxies with idle
 * time-outs do not cut long reasoning); a keep-alive follows every silence that long.
 */
export class SseResponse implements StreamSink {
  private timer: NodeJS.Timeout | undefined;
  private waitingForDrain: Promise<void> | undefined;

  constructor(
    private readonly response: ServerResponse,
    private readonly context: RequestContext,
    private readonly keepaliveMs: number,
  ) {}

  get started(): boolean {
    return this.response.headersSent;
  }

  /** Starts the silence timer; call when the request is about to go to a node. */
  startKeepalive(): void {
    this.timer = setTimeout(this.sendKeepalive, this.keepaliveMs);
  }

  write(text: string): Promise<void> | undefined {
    if (text === '') return this.waitingForDrain;
    this.timer?.refresh();
    this.startHeaders();
    if (this.response.write(text)) return undefined;
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

  finish(text: string): void {
    this.stopKeepalive();
    this.startHeaders();
    this.context.record.status ??= 200;
    this.response.end(text);
  }

  fail(error: unknown): void {
    const failure = asGatewayError(error);
    this.context.record.errorCode = failure.code;
    this.finish(`data: ${errorEnvelopeJson(failure, this.context)}\n\n`);
  }

  stopKeepalive(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly sendKeepalive = (): void => {
    if (this.response.writableEnded || this.response.destroyed) return;
    this.startHeaders();
    this.response.write(KEEPALIVE);
    this.timer?.refresh();
  };

  private startHeaders(): void {
    if (this.response.headersSent) return;
    this.context.record.status = 200;
    this.response.writeHead(
      200,
      withResponseHeaders(this.context, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }),
    );
    // No flushHeaders(): every caller writes right after, and the headers leave with it.
  }
}
