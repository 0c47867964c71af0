import type { ServerResponse } from 'node:http';
import { asGatewayError } from '../errors/gateway-error.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import type { GatewayReply, ReplySink, StreamEnd, StreamSink } from '../pipeline/front-door.js';
import type { RequestContext } from '../context/request-context.js';
import { errorEnvelopeJson } from './error-envelope.js';
import { sendJsonText } from './send-json.js';
import { SseResponse, SseStreamSink } from './sse-response.js';

const DONE = 'data: [DONE]\n\n';
/** Events the usage rides on, or that carry it: a finish reason, usage. Keys only (quotes in strings are escaped). */
const FINISH_OR_USAGE = /"finish_reason":"|"usage":\{/g;

/**
 * The chat-completions front door's way out. The pipeline's reply and stream are already
 * in this protocol: JSON goes out as it is (with the booked usage added when the node sent
 * none), stream events too. The door adds `data: [DONE]`,
 * in-stream errors in the spec's format (PRODUCT.md decisions 4, 7), and the usage: the
 * last usage a client reads is always the one booked (PRODUCT.md decision 18). A client
 * that asked for it (`stream_options.include_usage`) gets OpenAI's separate last chunk
 * with `choices: []`; any other client gets the usage on the last chunk that carries a
 * finish reason (held back until the usage is known), so `chunk.choices[0]` exists in
 * every chunk it reads.
 */
export class ChatReplySink implements ReplySink {
  constructor(
    private readonly response: ServerResponse,
    private readonly context: RequestContext,
    private readonly keepaliveMs: number,
    /** The client asked for the usage in a chunk of its own (`stream_options.include_usage`). */
    private readonly separateUsageChunk: boolean,
  ) {}

  json(reply: GatewayReply): void {
    const body = reply.usageSent ? reply.body : withUsage(reply.body, reply.usage);
    sendJsonText(this.response, this.context, 200, body);
  }

  stream(): StreamSink {
    const sse = new SseResponse(this.response, this.context, this.keepaliveMs);
    return this.separateUsageChunk
      ? new ChatStreamSink(sse, this.context)
      : new UsageOnFinishStreamSink(sse, this.context);
  }
}

/** Events as they come; the usage in a chunk of its own before `[DONE]`. */
class ChatStreamSink extends SseStreamSink {
  constructor(
    sse: SseResponse,
    protected readonly context: RequestContext,
  ) {
    super(sse);
  }

  write(events: string): Promise<void> | undefined {
    return this.sse.write(this.outgoing(events));
  }

  end(end: StreamEnd): void {
    this.sse.end(this.closing(end) + DONE);
  }

  fail(error: unknown, end: StreamEnd | undefined): void {
    const failure = asGatewayError(error);
    const before = end === undefined ? '' : this.closing(end);
    this.sse.end(`${before}data: ${errorEnvelopeJson(failure, this.context)}\n\n`);
  }

  /** The events as the client gets them. */
  protected outgoing(events: string): string {
    return events;
  }

  /** What goes out before `[DONE]` or the error event: the last events and the usage. */
  protected closing(end: StreamEnd): string {
    return end.lastEvents + usageChunk(end);
  }
}

/**
 * Events with the node's own usage chunk (`choices: []`) left out and the last chunk that
 * carries a finish reason held back, to go out last with the booked usage on it.
 */
class UsageOnFinishStreamSink extends ChatStreamSink {
  /** The last finish chunk seen, as the node's text and parsed, not sent yet. */
  private heldFinish: { readonly data: string; readonly chunk: Record<string, unknown> } | undefined;

  protected override outgoing(events: string): string {
    FINISH_OR_USAGE.lastIndex = 0;
    let out = '';
    let from = 0;
    for (let match = FINISH_OR_USAGE.exec(events); match !== null; match = FINISH_OR_USAGE.exec(events)) {
      const previousEnd = events.lastIndexOf('\n\n', match.index);
      const start = previousEnd === -1 ? 0 : previousEnd + 2;
      const stop = events.indexOf('\n\n', match.index) + 2;
      out += events.slice(from, start);
      const data = events.slice(start + 6, stop - 2);
      const chunk = JSON.parse(data) as Record<string, unknown>;
      const choices = chunk.choices;
      if (Array.isArray(choices) && choices.length === 0) {
        // The node's usage chunk: its usage (booked) rides on the finish chunk instead.
      } else if (
        Array.isArray(choices) &&
        choices.some((choice) => (choice as { finish_reason?: unknown } | null)?.finish_reason)
      ) {
        if (this.heldFinish !== undefined) out += `data: ${this.heldFinish.data}\n\n`;
        this.heldFinish = { data, chunk };
      } else {
        out += events.slice(start, stop);
      }
      from = stop;
      FINISH_OR_USAGE.lastIndex = stop;
    }
    return from === 0 ? events : out + events.slice(from);
  }

  /** The held finish chunk with the booked usage on it (or a chunk of an empty delta, when there was none). */
  protected override closing(end: StreamEnd): string {
    const last = this.outgoing(end.lastEvents);
    const held = this.heldFinish?.chunk;
    this.heldFinish = undefined;
    if (held === undefined && end.usage === undefined) return last;
    const chunk = held ?? {
      id: end.identity.id,
      object: 'chat.completion.chunk',
      created: end.identity.created,
      model: end.identity.model,
      choices: [{ index: 0, delta: {}, finish_reason: null }],
    };
    if (end.usage !== undefined) chunk.usage = end.usage;
    return `${last}data: ${JSON.stringify(chunk)}\n\n`;
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
