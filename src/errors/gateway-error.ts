import {
  ERROR_CODES,
  type ErrorCode,
  type ErrorType,
  type Language,
  type MessageParams,
  type ReasonedCode,
} from './codes.js';
import {
  because,
  phrase,
  renderReason,
  type Phrase,
  type PhraseArgs,
  type PhraseId,
  type Reason,
  type ReasonArgs,
  type ReasonId,
  type ReasonValue,
} from './reasons.js';
import { MAX_DISPLAY_CHARS, truncateForDisplay } from './truncate-for-display.js';
import type { WireProtocol } from '../config/wire-protocols.js';

/**
 * Params that hold words composed by our code, which may quote client input, not one value:
 * a node failure's `reason`, and in reasons and phrases `what` a node cannot take and a
 * configuration check's `problem`.
 */
const SENTENCE_PARAMS = new Set(['reason', 'what', 'problem']);
/** Longest such sentence a message repeats in full (a rendered reason too); ours stay far below it. */
const MAX_SENTENCE_CHARS = 4 * MAX_DISPLAY_CHARS;

/** A param's string as messages may show it: a sentence param cut to MAX_SENTENCE_CHARS, any other to MAX_DISPLAY_CHARS. */
function shown(name: string, value: string): string {
  if (value.length <= MAX_DISPLAY_CHARS) return value;
  return truncateForDisplay(value, SENTENCE_PARAMS.has(name) ? MAX_SENTENCE_CHARS : MAX_DISPLAY_CHARS);
}

/**
 * The params as messages may show them: a client string (a 1 MB model name, a param path
 * through a 1 MB key) is cut to MAX_DISPLAY_CHARS with a visible marker, a sentence to
 * MAX_SENTENCE_CHARS. The same object back when nothing is that long (the usual case).
 */
function boundedParams(params: MessageParams): MessageParams {
  let bounded: Record<string, string | number | undefined> | undefined;
  for (const name in params) {
    const value = params[name];
    if (typeof value !== 'string') continue;
    const cut = shown(name, value);
    if (cut === value) continue;
    bounded ??= { ...params };
    bounded[name] = cut;
  }
  return bounded ?? params;
}

/** The reason with its params, and its phrases' params, bounded as boundedParams does; the same object when none is long. */
function boundedReason(reason: Reason): Reason {
  let bounded: Record<string, ReasonValue | Phrase | undefined> | undefined;
  for (const [name, value] of Object.entries(reason.params)) {
    let cut = value;
    if (typeof value === 'string') cut = shown(name, value);
    else if (typeof value === 'object') {
      const params = boundedParams(value.params);
      if (params !== value.params) cut = { ...value, params };
    }
    if (cut === value) continue;
    bounded ??= { ...reason.params };
    bounded[name] = cut;
  }
  return bounded === undefined ? reason : { ...reason, params: bounded };
}

/** What we know about a node's failure, kept for logs and for passing client errors through. */
export interface UpstreamFailure {
  readonly nodeId: string;
  /** The node's wire protocol: a front door passes the node's own body through only in its own protocol. */
  readonly protocol?: WireProtocol;
  readonly status?: number;
  /** The node's own body, verbatim: passed through unchanged for client-side errors (spec 7.3). */
  readonly body?: Buffer;
  readonly contentType?: string;
  readonly upstreamRequestId?: string;
  /** The client caused it (a node 4xx outside the failover set): answer with the node's status and body as they are. */
  readonly passThrough?: boolean;
}

export interface GatewayErrorOptions {
  readonly param?: string | null;
  readonly params?: MessageParams;
  /**
   * Why, in the registry's words (reasons.ts), for the codes whose message gives a reason
   * (validation_failed, access_denied, conflict): rendered in the caller's language.
   */
  readonly reason?: Reason;
  /** Seconds for the Retry-After header (429, 502, 503). */
  readonly retryAfter?: number;
  /** Extra response headers (e.g. Allow on 405). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly retryable?: boolean;
  readonly upstream?: UpstreamFailure;
  readonly cause?: unknown;
}

/**
 * The one error class of the gateway. Created by code (see `gatewayError`); only the
 * HTTP error renderer turns it into a response, in the caller's language. Client strings
 * in its params, its reason's params and `param` are cut to a bounded length (see boundedParams).
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly params: MessageParams;
  readonly reason: Reason | undefined;
  readonly retryable: boolean;
  readonly retryAfter: number | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly upstream: UpstreamFailure | undefined;

  constructor(code: ErrorCode, options: GatewayErrorOptions = {}) {
    const definition = ERROR_CODES[code];
    const params = options.params === undefined ? {} : boundedParams(options.params);
    const param = options.param === undefined || options.param === null ? null : truncateForDisplay(options.param);
    const reason = options.reason === undefined ? undefined : boundedReason(options.reason);
    super(
      definition.message.en(params, reasonText(reason, 'en', param)),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'GatewayError';
    this.code = code;
    this.status = definition.status;
    this.type = definition.type;
    this.param = param;
    this.params = params;
    this.reason = reason;
    this.retryable = options.retryable ?? definition.retryable;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
    this.upstream = options.upstream;
  }

  /** The message in the caller's language. */
  localizedMessage(language: Language): string {
    return language === 'en'
      ? this.message
      : ERROR_CODES[this.code].message[language](this.params, reasonText(this.reason, language, this.param));
  }
}

function reasonText(reason: Reason | undefined, language: Language, param: string | null): string | undefined {
  return reason === undefined
    ? undefined
    : truncateForDisplay(renderReason(reason, language, param), MAX_SENTENCE_CHARS);
}

/** Creates a GatewayError by its registry code; only a code whose message gives a reason takes one. */
export function gatewayError(code: ReasonedCode, options?: GatewayErrorOptions): GatewayError;
export function gatewayError(code: ErrorCode, options?: Omit<GatewayErrorOptions, 'reason'>): GatewayError;
export function gatewayError(code: ErrorCode, options?: GatewayErrorOptions): GatewayError {
  return new GatewayError(code, options);
}

/** 400 validation_failed about `param` (null: the body as a whole), for the reason `id` of the registry. */
export function validationFailed<R extends ReasonId>(
  param: string | null,
  id: R,
  ...args: ReasonArgs<R>
): GatewayError {
  return new GatewayError('validation_failed', { param, reason: because(id, ...args) });
}

/** 400 validation_failed: "Invalid parameter '<param>': <phrase>." (`tools[0].name`, `must_be_tool_name`). */
export function invalidParameter<P extends PhraseId>(param: string, id: P, ...args: PhraseArgs<P>): GatewayError {
  return validationFailed(param, 'invalid_parameter', { what: phrase(id, ...args) });
}

/** 400 validation_failed: "Invalid parameter '<param>': it <phrase>.", for a phrase about the value (`required`). */
export function invalidValue<P extends PhraseId>(param: string, id: P, ...args: PhraseArgs<P>): GatewayError {
  return validationFailed(param, 'invalid_parameter_value', { what: phrase(id, ...args) });
}

/** True for a GatewayError (its subclasses included). */
export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

/** Anything thrown → a GatewayError; unexpected errors become an internal_error that leaks nothing. */
export function asGatewayError(error: unknown): GatewayError {
  return isGatewayError(error) ? error : gatewayError('internal_error', { cause: error });
}

/**
 * An exception raised by the gateway's own code (building a node request, mapping a reply):
 * a GatewayError it threw on purpose stays as it is; anything else is a 500 internal_error
 * that is never retried on another node and never counts against one (PRODUCT.md decision 22).
 */
export function ownFault(error: unknown): GatewayError {
  return isGatewayError(error) ? error : gatewayError('internal_error', { retryable: false, cause: error });
}

/** The client went away (code client_gone): nothing more is sent; the request is only logged and booked. */
export function isClientGone(error: unknown): boolean {
  return isGatewayError(error) && error.code === 'client_gone';
}
