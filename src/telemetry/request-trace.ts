import { performance } from 'node:perf_hooks';
import {
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import type { NodeConfig } from '../config/gateway-config.js';
import type { RequestContext, RequestRecord } from '../context/request-context.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { CallContext } from '../providers/types.js';
import { inputMessages, outputMessages } from './captured-content.js';
import {
  CHAT_OPERATION,
  GEN_AI_INPUT_MESSAGES,
  GEN_AI_OPERATION_NAME,
  GEN_AI_OUTPUT_MESSAGES,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MAX_TOKENS,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_REQUEST_STREAM,
  GEN_AI_RESPONSE_FINISH_REASONS,
  GEN_AI_RESPONSE_ID,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  PROVIDER_NAMES,
  SWITCHYARD_ACCOUNT,
  SWITCHYARD_ATTEMPT,
  SWITCHYARD_COST_USD,
  SWITCHYARD_FRONT_DOOR,
  SWITCHYARD_NODE,
} from './gen-ai-attributes.js';

/** What a successful attempt answered with, as far as the trace reads it. */
export type AnsweredExecution =
  | { readonly kind: 'json'; readonly body: string }
  | { readonly kind: 'stream'; readonly reader: { readonly mapper: { readonly identity: ResponseIdentity } } };

interface ResponseIdentity {
  readonly id: string;
  readonly model: string;
}

/** What the spans of every request share: the tracer, the propagator, the content settings. */
export interface TraceSettings {
  readonly tracer: Tracer;
  readonly propagator: TextMapPropagator;
  readonly captureContent: boolean;
  readonly maxContentChars: number;
  /** `server.address` / `server.port` of a node, parsed once per node. */
  serverOf(node: NodeConfig): { readonly address: string; readonly port: number };
}

/** The longest `error.type` kept: a failure's reason is short words, but a node's own message may not be. */
const MAX_ERROR_TYPE_CHARS = 64;
/** How far into a JSON reply its `id` and `model` are looked for (they lead every protocol's reply object). */
const IDENTITY_PREFIX_CHARS = 2048;

/** The node attempt in progress, or the successful one waiting for the request's end. */
interface AttemptSpan {
  readonly span: Span;
  /** The context whose `traceparent` the node is sent. */
  readonly context: Context;
  readonly startedAt: number;
  /** When a JSON reply was in: the span ends there, its usage filled in at the request's end. */
  endedAt?: number;
  identity?: ResponseIdentity;
  jsonBody?: string;
}

/**
 * One request's trace (PRODUCT.md decision 29): its SERVER span, from arrival to the end of
 * the response, and a CLIENT span per node attempt, child of the SERVER span, whose context
 * is the `traceparent` the node is sent. Attempts run one after another, so the trace keeps
 * the current one; the pipeline reports through `context.trace` at the attempt's start, when
 * its request headers are built, when it answered, and when it ended. A successful
 * attempt's span stays open until the request ends, when its usage, finish reason and cost
 * are known (a stream's last usage comes with its last event).
 */
export class RequestTrace {
  private attempts = 0;
  private current: AttemptSpan | undefined;
  private answered: AttemptSpan | undefined;
  private inputText: string | undefined;
  /** The SERVER span as the parent of the attempts' spans. */
  private parent: Context | undefined;

  constructor(
    private readonly settings: TraceSettings,
    private readonly span: Span,
  ) {}

  /** The W3C trace id, for the request record. */
  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  /** A node attempt starts: its CLIENT span, named `chat {model sent to the node}`. */
  startAttempt(call: CallContext, request: ChatRequest): void {
    const { node } = call;
    const server = this.settings.serverOf(node);
    const attributes: Attributes = {
      [GEN_AI_OPERATION_NAME]: CHAT_OPERATION,
      [GEN_AI_PROVIDER_NAME]: PROVIDER_NAMES[node.protocol],
      [GEN_AI_REQUEST_MODEL]: call.upstreamModel,
      [GEN_AI_REQUEST_STREAM]: call.stream,
      [ATTR_SERVER_ADDRESS]: server.address,
      [ATTR_SERVER_PORT]: server.port,
      [SWITCHYARD_NODE]: node.id,
      [SWITCHYARD_ATTEMPT]: ++this.attempts,
    };
    if (!call.outputCap.contextBound) attributes[GEN_AI_REQUEST_MAX_TOKENS] = call.outputCap.tokens;
    if (this.settings.captureContent) {
      this.inputText ??= inputMessages(request, this.settings.maxContentChars);
      attributes[GEN_AI_INPUT_MESSAGES] = this.inputText;
    }
    if (this.attempts === 1) this.describeRequest(call, request);
    const span = this.settings.tracer.startSpan(
      `${CHAT_OPERATION} ${call.upstreamModel}`,
      { kind: SpanKind.CLIENT, attributes },
      (this.parent ??= trace.setSpan(ROOT_CONTEXT, this.span)),
    );
    this.current = { span, context: trace.setSpan(ROOT_CONTEXT, span), startedAt: performance.now() };
  }

  /** Adds the current attempt's `traceparent` (and `tracestate`) to the node request's headers. */
  injectInto(headers: Record<string, string>): void {
    if (this.current === undefined) return;
    this.settings.propagator.inject(this.current.context, headers, defaultTextMapSetter);
  }

  /** The current attempt answered well: a JSON reply read, or a stream's first events mapped. */
  attemptAnswered(execution: AnsweredExecution): void {
    const attempt = this.current;
    if (attempt === undefined) return;
    const now = performance.now();
    if (execution.kind === 'json') {
      attempt.endedAt = now;
      attempt.jsonBody = execution.body;
    } else {
      attempt.identity = execution.reader.mapper.identity;
      attempt.span.setAttribute(GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, (now - attempt.startedAt) / 1000);
      attempt.span.addEvent('gen_ai.first_chunk', now);
    }
  }

  /** The current attempt is over: `error` undefined when it answered (its span then ends with the request). */
  attemptEnded(status: number | undefined, error: string | undefined): void {
    const attempt = this.current;
    if (attempt === undefined) return;
    this.current = undefined;
    if (status !== undefined) attempt.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (error === undefined) {
      this.answered = attempt;
      return;
    }
    const errorType = status !== undefined && status >= 400 ? String(status) : error.replace(/^node [^:]*: /, '');
    attempt.span.setAttribute(ATTR_ERROR_TYPE, errorType.slice(0, MAX_ERROR_TYPE_CHARS));
    attempt.span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    attempt.span.end();
  }

  /** The response is over (sent, failed or cut): the answered attempt's span, then the SERVER span, end. */
  end(context: RequestContext): void {
    const { record } = context;
    const attempt = this.answered ?? this.current;
    const reply: Attributes = replyAttributes(record);
    if (attempt !== undefined) {
      const identity = attempt.identity ?? jsonIdentity(attempt.jsonBody);
      if (identity?.id) reply[GEN_AI_RESPONSE_ID] = identity.id;
      if (identity?.model) reply[GEN_AI_RESPONSE_MODEL] = identity.model;
      attempt.span.setAttributes(reply);
      if (this.settings.captureContent && attempt.jsonBody !== undefined) {
        const output = outputMessages(attempt.jsonBody, this.settings.maxContentChars);
        if (output !== undefined) attempt.span.setAttribute(GEN_AI_OUTPUT_MESSAGES, output);
      }
      if (attempt === this.current) {
        // Cut before the attempt ended (client gone, deadline, shutdown).
        attempt.span.setAttribute(ATTR_ERROR_TYPE, record.errorCode ?? 'cancelled');
        attempt.span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (record.errorCode !== undefined && record.status === 200) {
        // The stream failed after its first event (an in-stream error event).
        attempt.span.setAttribute(ATTR_ERROR_TYPE, record.errorCode);
        attempt.span.setStatus({ code: SpanStatusCode.ERROR });
      }
      attempt.span.end(attempt.endedAt);
    }
    const status = record.status ?? (record.clientAborted ? 499 : undefined);
    const span = this.span;
    span.updateName(record.model === undefined ? CHAT_OPERATION : `${CHAT_OPERATION} ${record.model}`);
    if (record.model !== undefined) reply[GEN_AI_REQUEST_MODEL] = record.model;
    reply[SWITCHYARD_FRONT_DOOR] = record.frontDoor;
    if (status !== undefined) reply[ATTR_HTTP_RESPONSE_STATUS_CODE] = status;
    const errorType = record.clientAborted ? 'client_aborted' : record.errorCode;
    if (errorType !== undefined) reply[ATTR_ERROR_TYPE] = errorType;
    span.setAttributes(reply);
    if ((status !== undefined && status >= 500) || (status === 200 && record.errorCode !== undefined))
      span.setStatus({ code: SpanStatusCode.ERROR, message: record.errorCode });
    span.end();
  }

  /** What the client asked, on the SERVER span, once the request was read (the first attempt). */
  private describeRequest(call: CallContext, request: ChatRequest): void {
    const attributes: Attributes = { [GEN_AI_REQUEST_STREAM]: call.stream };
    const maxTokens = request.max_completion_tokens ?? request.max_tokens;
    if (typeof maxTokens === 'number') attributes[GEN_AI_REQUEST_MAX_TOKENS] = maxTokens;
    this.span.setAttributes(attributes);
  }
}

/** Usage, finish reason, account and cost of the request's record, as span attributes. */
function replyAttributes(record: RequestRecord): Attributes {
  const attributes: Attributes = {};
  const { usage } = record;
  if (usage !== undefined) {
    attributes[GEN_AI_USAGE_INPUT_TOKENS] = usage.prompt_tokens;
    attributes[GEN_AI_USAGE_OUTPUT_TOKENS] = usage.completion_tokens;
    const cacheRead = usage.prompt_tokens_details?.cached_tokens;
    if (typeof cacheRead === 'number') attributes[GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = cacheRead;
    const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens;
    if (typeof cacheWrite === 'number') attributes[GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = cacheWrite;
    const reasoning = usage.completion_tokens_details?.reasoning_tokens;
    if (typeof reasoning === 'number') attributes[GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = reasoning;
  }
  if (record.finishReason !== undefined) attributes[GEN_AI_RESPONSE_FINISH_REASONS] = [record.finishReason];
  if (record.accountId !== undefined) attributes[SWITCHYARD_ACCOUNT] = record.accountId;
  if (record.costUsd !== undefined) attributes[SWITCHYARD_COST_USD] = record.costUsd;
  return attributes;
}

/**
 * The `id` and `model` of a JSON reply, read from its first characters only (every
 * protocol's reply object starts with them), never parsing a large body for a trace.
 */
function jsonIdentity(body: string | undefined): ResponseIdentity | undefined {
  if (body === undefined) return undefined;
  const head = body.length > IDENTITY_PREFIX_CHARS ? body.slice(0, IDENTITY_PREFIX_CHARS) : body;
  const id = /"id"\s*:\s*"([^"\\]{1,256})"/.exec(head)?.[1];
  const model = /"model"\s*:\s*"([^"\\]{1,256})"/.exec(head)?.[1];
  return { id: id ?? '', model: model ?? '' };
}
