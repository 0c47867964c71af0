import type { ServerResponse } from 'node:http';
import { wireCodeOf } from '../../errors/codes.js';
import { asGatewayError } from '../../errors/gateway-error.js';
import type { OutputShaping } from './output-items.js';
import { responseFromCompletion } from './response-from-completion.js';
import type { ResponseObject } from './response-object.js';
import { ResponseStreamEvents } from './response-stream-events.js';
import type { ChatCompletion } from '../../protocol/openai/chat-response-types.js';
import type {
  GatewayReply,
  ReplyFormat,
  ReplySink,
  StreamEnd,
  StreamEvents,
  StreamSink,
} from '../../pipeline/front-door.js';
import { countSseEvents } from '../../streaming/sse-parser.js';
import { chunksOf, textOf } from '../../streaming/stream-events.js';
import type { RequestContext } from '../../context/request-context.js';
import { sendJsonText } from '../../reply/send-json.js';
import { SseResponse, SseStreamSink } from '../../reply/sse-response.js';

type Item = Record<string, unknown>;

/** A response that reached its end (completed or incomplete), and the node that made it. */
export interface FinishedResponse {
  readonly response: Item;
  readonly node: string | undefined;
}

/**
 * Runs when a response is whole, before its last bytes go out (the store keeps it, rule B5:
 * a client holding the reply can continue from it). Its failure does not fail the reply.
 */
export type OnResponseFinished = (finished: FinishedResponse) => Promise<void> | undefined;

/** The node that answered, as the pipeline logged its last attempt (known before the reply's end). */
function answeringNode(context: RequestContext): string | undefined {
  return context.record.attempts[context.record.attempts.length - 1]?.node;
}

/** The terminal events of a native Responses stream, whose `response` is the one to store. */
const NATIVE_TERMINAL = /^data: (\{"type":"response\.(?:completed|incomplete)".*)$/m;

/**
 * The Responses front door's way out (inbound-protocols 2.6–2.10): the pipeline's
 * `chat.completion` becomes a Response object, its chunk stream the Responses event
 * sequence with numbered keep-alives, and a failure after the first byte an `error` event
 * and `response.failed`.
 */
export class ResponsesReplySink implements ReplySink {
  constructor(
    private readonly response: ServerResponse,
    private readonly context: RequestContext,
    private readonly keepaliveMs: number,
    private readonly object: ResponseObject,
    private readonly shaping: OutputShaping,
    /** Keeps a finished response (the store); undefined when nothing is kept (`store: false`). */
    private readonly onFinished: OnResponseFinished | undefined,
  ) {}

  json(reply: GatewayReply): void {
    const { node } = reply;
    let body: string;
    let response: Item | undefined;
    if (reply.format === 'native') {
      // A node that serves the Responses API: its own Response, as it sent it (model id put
      // back); read again only when it is to be kept.
      body = reply.body;
      if (this.onFinished !== undefined) response = JSON.parse(body) as Item;
    } else {
      const completion = JSON.parse(reply.body) as ChatCompletion;
      response = responseFromCompletion(completion, reply.usage, this.object, this.shaping, node);
      body = JSON.stringify(response);
    }
    afterFinished(response === undefined ? undefined : this.onFinished?.({ response, node }), () => {
      sendJsonText(this.response, this.context, 200, body);
    });
  }

  stream(): StreamSink {
    const events = new ResponseStreamEvents(this.object, this.shaping, () => answeringNode(this.context));
    const sse = new SseResponse(this.response, this.context, this.keepaliveMs, () => events.keepalive());
    return new ResponsesStreamSink(sse, events, this.context, this.onFinished);
  }
}

class ResponsesStreamSink extends SseStreamSink {
  constructor(
    sse: SseResponse,
    private readonly events: ResponseStreamEvents,
    private readonly context: RequestContext,
    private readonly onFinished: OnResponseFinished | undefined,
  ) {
    super(sse);
  }

  /** Events of a native stream sent so far (their sequence numbers were 0 … n − 1). */
  private nativeEvents = 0;
  /** The terminal `response` of a native stream, once it went by. */
  private nativeResponse: Item | undefined;

  write(events: StreamEvents, format: ReplyFormat): Promise<void> | undefined {
    if (format === 'internal') return this.sse.write(this.events.write(chunksOf(events)));
    const text = textOf(events);
    if (this.onFinished !== undefined) this.noteNativeTerminal(text);
    this.nativeEvents += countSseEvents(text);
    return this.sse.write(text);
  }

  end(end: StreamEnd): void {
    if (end.format === 'native') {
      const last = textOf(end.lastEvents);
      if (this.onFinished !== undefined) this.noteNativeTerminal(last);
      const response = this.nativeResponse;
      const send = () => this.sse.end(last);
      if (response === undefined) send();
      else afterFinished(this.onFinished?.({ response, node: end.node }), send);
      return;
    }
    const { events, response } = this.events.end(chunksOf(end.lastEvents), end.usage);
    afterFinished(this.onFinished?.({ response, node: end.node }), () => this.sse.end(events));
  }

  private noteNativeTerminal(events: string): void {
    if (!events.includes('"response.completed"') && !events.includes('"response.incomplete"')) return;
    const match = NATIVE_TERMINAL.exec(events);
    if (match === null) return;
    try {
      this.nativeResponse = (JSON.parse(match[1] as string) as { response?: Item }).response;
    } catch {
      // Not JSON after all: nothing to store.
    }
  }

  fail(error: unknown, end: StreamEnd | undefined): void {
    const failure = asGatewayError(error);
    const errorFields = {
      type: failure.type,
      code: wireCodeOf(failure.code),
      message: failure.localizedMessage(this.context.language),
    };
    if (end?.format === 'native') {
      // The node's own events so far, then the failure in the same protocol.
      // The node's id from its `response.created`, as the stream mapper read it ('' before it).
      const nodeResponseId = end.identity.id === '' ? undefined : end.identity.id;
      const last = textOf(end.lastEvents);
      this.nativeEvents += countSseEvents(last);
      this.sse.end(last + this.events.nativeFailure(this.nativeEvents, errorFields, nodeResponseId));
      return;
    }
    const { events } = this.events.fail(end === undefined ? [] : chunksOf(end.lastEvents), errorFields, end?.usage);
    this.sse.end(events);
  }
}

/** Runs `send` once `saving` settled (at once when there is nothing to wait for). */
function afterFinished(saving: Promise<void> | undefined, send: () => void): void {
  if (saving === undefined) send();
  else void saving.then(send, send);
}
