import type { ServerResponse } from 'node:http';
import { asGatewayError } from '../../errors/gateway-error.js';
import type { ChatCompletionChunk, Usage } from '../../protocol/openai/chat-response-types.js';
import type { GatewayReply, ReplySink, StreamEnd, StreamEvents, StreamSink } from '../../pipeline/front-door.js';
import { plainEventAround, plainEventData } from '../../streaming/sse-parser.js';
import { isAsciiText, textOf } from '../../streaming/stream-events.js';
import type { RequestContext } from '../../context/request-context.js';
import { errorEnvelopeJson } from '../../reply/error-envelope.js';
import { sendJsonText } from '../../reply/send-json.js';
import { SseResponse, SseStreamSink } from '../../reply/sse-response.js';

const DONE = 'data: [DONE]\n\n';
/** Events the usage rides on, or that carry it: a finish reason, usage. Keys only (quotes in strings are escaped). */
const FINISH_OR_USAGE = /"finish_reason":"|"usage":\{/g;

/**
 * The chat-completions front door's way out. The pipeline's reply and stream are already
 * in this protocol: JSON goes out as it is (with the booked usage added when the node sent
 * none), stream events too (chunk objects serialized, an OpenAI node's text as it came).
 * The door adds `data: [DONE]`,
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

  write(events: StreamEvents): Promise<void> | undefined {
    // The events as the client gets them are slices of the text and framing: ASCII when it was.
    return this.sse.write(this.outgoing(events), isAsciiEvents(events));
  }

  end(end: StreamEnd): void {
    const closing = this.closing(end);
    this.sse.end(closing.text, closing.ascii, DONE);
  }

  fail(error: unknown, end: StreamEnd | undefined): void {
    const failure = asGatewayError(error);
    const before = end === undefined ? '' : this.closing(end).text;
    this.sse.end(`${before}data: ${errorEnvelopeJson(failure, this.context)}\n\n`);
  }

  /** The events as the client gets them. */
  protected outgoing(events: StreamEvents): string {
    return textOf(events);
  }

  /** What goes out before `[DONE]` or the error event: the last events and the usage; `ascii`: known to be ASCII. */
  protected closing(end: StreamEnd): { readonly text: string; readonly ascii: boolean } {
    const usage = usageChunk(end);
    return {
      text: this.outgoing(end.lastEvents) + usage,
      ascii: isAsciiEvents(end.lastEvents) && (usage === '' || isAsciiText(usage)),
    };
  }
}

/**
 * Events with the node's own usage chunk (`choices: []`) left out and the last chunk that
 * carries a finish reason held back, to go out last with the booked usage on it.
 */
class UsageOnFinishStreamSink extends ChatStreamSink {
  /** The last finish chunk seen, not sent yet, and the node's text of it when it came as text. */
  private heldFinish: { readonly data: string | undefined; readonly chunk: Record<string, unknown> } | undefined;

  protected override outgoing(events: StreamEvents): string {
    if (events.form === 'chunks') {
      let out = '';
      for (const chunk of events.chunks) out += this.passed(chunk, undefined);
      return out;
    }
    const text = events.text;
    FINISH_OR_USAGE.lastIndex = 0;
    let out = '';
    let from = 0;
    for (let match = FINISH_OR_USAGE.exec(text); match !== null; match = FINISH_OR_USAGE.exec(text)) {
      const event = plainEventAround(text, match.index);
      out += text.slice(from, event.start);
      const data = plainEventData(text, event.start, event.end);
      out += this.passed(JSON.parse(data) as ChatCompletionChunk, data);
      from = event.end;
      FINISH_OR_USAGE.lastIndex = from;
    }
    return from === 0 ? text : out + text.slice(from);
  }

  /**
   * What goes out of one chunk (`data`: the node's text of it, when it came as text and
   * carries a finish reason or usage): nothing for the node's usage chunk (its usage,
   * booked, rides on the finish chunk instead); a finish chunk is held, and the one held
   * before goes out; any other as it is (a chunk of no choices and no usage too: Azure's
   * prompt filter results).
   */
  private passed(chunk: ChatCompletionChunk, data: string | undefined): string {
    const choices = chunk.choices as unknown;
    const usage = chunk.usage as unknown;
    if (
      Array.isArray(choices) &&
      choices.length === 0 &&
      (data !== undefined || (usage !== null && typeof usage === 'object'))
    )
      return '';
    if (
      Array.isArray(choices) &&
      choices.some((choice) => (choice as { finish_reason?: unknown } | null)?.finish_reason)
    ) {
      const before = this.heldFinish === undefined ? '' : framed(this.heldFinish);
      this.heldFinish = { data, chunk };
      return before;
    }
    return `data: ${data ?? JSON.stringify(chunk)}\n\n`;
  }

  /** The held finish chunk with the booked usage on it (or a chunk of an empty delta, when there was none). */
  protected override closing(end: StreamEnd): { readonly text: string; readonly ascii: boolean } {
    const last = this.outgoing(end.lastEvents);
    const held = this.heldFinish?.chunk;
    this.heldFinish = undefined;
    if (held === undefined && end.usage === undefined) return { text: last, ascii: isAsciiEvents(end.lastEvents) };
    const chunk = held ?? {
      id: end.identity.id,
      object: 'chat.completion.chunk',
      created: end.identity.created,
      model: end.identity.model,
      choices: [{ index: 0, delta: {}, finish_reason: null }],
    };
    if (end.usage !== undefined) chunk.usage = end.usage;
    const json = JSON.stringify(chunk);
    return { text: `${last}data: ${json}\n\n`, ascii: isAsciiEvents(end.lastEvents) && isAsciiText(json) };
  }
}

/** Events known to be ASCII (text marked so; the outgoing text of such events is made of its slices and framing). */
function isAsciiEvents(events: StreamEvents): boolean {
  return events.form === 'text' && events.ascii === true;
}

/** A held chunk as it goes out: the node's text when it came as text, else serialized. */
function framed(held: { readonly data: string | undefined; readonly chunk: Record<string, unknown> }): string {
  return `data: ${held.data ?? JSON.stringify(held.chunk)}\n\n`;
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
