import type { ServerResponse } from 'node:http';
import { asGatewayError } from '../../errors/gateway-error.js';
import { MessagesStreamTranslator, PING_EVENT, usageSoFarEvent } from './messages-stream-translator.js';
import { messagesErrorBody } from './messages-error.js';
import type { ThinkingSignatures } from './thinking-signatures.js';
import type { SignatureAffinity } from './signature-affinity.js';
import { toMessagesReply } from './to-messages-reply.js';
import type {
  GatewayReply,
  ReplyFormat,
  ReplySink,
  StreamEnd,
  StreamEvents,
  StreamSink,
} from '../../pipeline/front-door.js';
import { chunksOf, textOf } from '../../streaming/stream-events.js';
import type { RequestContext } from '../../context/request-context.js';
import { sendJsonText } from '../../reply/send-json.js';
import { SseResponse, SseStreamSink } from '../../reply/sse-response.js';

/** What the Messages door's way out needs besides the response. */
export interface MessagesSinkOptions {
  readonly keepaliveMs: number;
  readonly envelopes: ThinkingSignatures;
  /** The client's model id. */
  readonly model: string;
  /** The prompt as the gateway counts it, for `message_start` of a translated stream (rule A1). */
  readonly inputTokensEstimate: number;
  /** Where the Anthropic nodes' thinking signatures are remembered, for affinity. */
  readonly signatures: SignatureAffinity;
}

/**
 * The Anthropic Messages front door's way out (PRODUCT.md decisions 15, 16): a native
 * reply (an Anthropic node's own) goes out as it is; an internal one (`chat.completion`
 * and its chunks) is mapped to a `message` and to Anthropic's event sequence. Keep-alives
 * are `event: ping`; a failure after the start is an `event: error` (rule C1).
 */
export class MessagesReplySink implements ReplySink {
  constructor(
    private readonly response: ServerResponse,
    private readonly context: RequestContext,
    private readonly options: MessagesSinkOptions,
  ) {}

  json(reply: GatewayReply): void {
    if (reply.format === 'native') this.options.signatures.record(reply.body, reply.node);
    const body =
      reply.format === 'native'
        ? reply.body
        : toMessagesReply(reply.body, {
            requestId: this.context.requestId,
            node: reply.node,
            usage: reply.usage,
            envelopes: this.options.envelopes,
          });
    sendJsonText(this.response, this.context, 200, body);
  }

  stream(): StreamSink {
    return new MessagesStreamSink(
      new SseResponse(this.response, this.context, this.options.keepaliveMs, PING_EVENT),
      this.context,
      this.options,
    );
  }
}

class MessagesStreamSink extends SseStreamSink {
  private readonly translator: MessagesStreamTranslator;

  constructor(
    sse: SseResponse,
    private readonly context: RequestContext,
    private readonly options: MessagesSinkOptions,
  ) {
    super(sse);
    this.translator = new MessagesStreamTranslator({
      requestId: context.requestId,
      model: options.model,
      inputTokensEstimate: options.inputTokensEstimate,
      // The node streaming is the last one tried.
      node: () => context.record.attempts.at(-1)?.node,
      envelopes: options.envelopes,
    });
  }

  write(events: StreamEvents, format: ReplyFormat): Promise<void> | undefined {
    if (format === 'internal') return this.sse.write(this.translator.write(chunksOf(events)));
    const text = textOf(events);
    this.options.signatures.record(text, this.context.record.attempts.at(-1)?.node);
    return this.sse.write(text);
  }

  end(end: StreamEnd): void {
    if (end.format === 'internal') {
      this.sse.end(this.translator.end(chunksOf(end.lastEvents), end.usage));
      return;
    }
    const last = textOf(end.lastEvents);
    this.options.signatures.record(last, end.node);
    this.sse.end(last);
  }

  fail(error: unknown, end: StreamEnd | undefined): void {
    const failure = asGatewayError(error);
    // A native stream's own error event (an Anthropic node's `overloaded_error`) goes out as the node sent it.
    const upstream = failure.upstream;
    const body =
      end?.format === 'native' &&
      upstream?.protocol === 'anthropic' &&
      upstream.body !== undefined &&
      upstream.status === undefined
        ? upstream.body.toString('utf8')
        : messagesErrorBody(failure, this.context);
    // The usage so far goes out before the error event, as the other doors send theirs.
    const usage = end?.usage;
    this.sse.end(
      end?.format === 'native'
        ? `${textOf(end.lastEvents)}${usage === undefined ? '' : usageSoFarEvent(usage)}event: error\ndata: ${body}\n\n`
        : this.translator.fail(end === undefined ? [] : chunksOf(end.lastEvents), body, usage),
    );
  }
}
