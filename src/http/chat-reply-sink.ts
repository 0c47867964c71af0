import type { ServerResponse } from 'node:http';
import { asGatewayError } from '../errors/gateway-error.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import type { GatewayReply, ReplySink, StreamEnd, StreamSink } from '../pipeline/front-door.js';
import type { RequestContext } from '../context/request-context.js';
import { errorEnvelopeJson } from './error-envelope.js';
import { withResponseHeaders } from './response-headers.js';
import { SseResponse } from './sse-response.js';

const DONE = 'data: [DONE]\n\n';

/**
 * The chat-completions front door's way out. The pipeline's reply and stream are already
 * in this protocol: JSON goes out as it is, stream events too; the door adds the usage
 * (the reply's `usage` field, or the stream's usage chunk) when the node sent none (the
 * last usage a client reads is always the one booked),
 * `data: [DONE]`, and in-stream errors in the spec's format (PRODUCT.md decisions 4, 7).
 */
export class ChatReplySink implements ReplySink {
  constructor(
    private readonly response: ServerResponse,
    private readonly context: RequestContext,
    private readonly keepaliveMs: number,
  ) {}

  json(reply: GatewayReply): void {
    const body = reply.usageSent ? reply.body : withUsage(reply.body, reply.usage);
    this.response.writeHead(200, withResponseHeaders(this.context, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }));
    this.response.end(body);
  }

  stream(): StreamSink {
    return new ChatStreamSink(new SseResponse(this.response, this.context, this.keepaliveMs), this.context);
  }
}

class ChatStreamSink implements StreamSink {
  constructor(
    private readonly sse: SseResponse,
    private readonly context: RequestContext,
  ) {}

  get started(): boolean {
    return this.sse.started;
  }

  startKeepalive(): void {
    this.sse.startKeepalive();
  }

  stopKeepalive(): void {
    this.sse.stopKeepalive();
  }

  write(events: string): Promise<void> | undefined {
    return this.sse.write(events);
  }

  end(end: StreamEnd): void {
    this.sse.end(end.lastEvents + usageChunk(end) + DONE);
  }

  fail(error: unknown, end: StreamEnd | undefined): void {
    const failure = asGatewayError(error);
    this.context.record.errorCode = failure.code;
    const before = end === undefined ? '' : end.lastEvents + usageChunk(end);
    this.sse.end(`${before}data: ${errorEnvelopeJson(failure, this.context)}\n\n`);
  }
}

/** The usage chunk the gateway adds when the node's own did not go out (an estimate, marked so). */
function usageChunk(end: StreamEnd): string {
  if (end.usageSent || end.usage === undefined) return '';
  const { id, created, model } = end.identity;
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: end.usage })}\n\n`;
}

/**
 * A node's reply with the booked usage in place of its own, which was missing or not
 * counts (an estimate, `estimated: true`, as in a stream's usage chunk). Rare, so the
 * reply is parsed and written again rather than patched as text.
 */
function withUsage(body: string, usage: Usage): string {
  const reply = JSON.parse(body) as Record<string, unknown>;
  reply.usage = usage;
  return JSON.stringify(reply);
}
