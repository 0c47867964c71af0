import { ERROR_CODES, type ErrorCode, type ErrorType, type Language, type MessageParams } from './codes.js';
import { MAX_DISPLAY_CHARS, truncateForDisplay } from './truncate-for-display.js';
import type { WireProtocol } from '../config/wire-protocols.js';

/** Params that hold a whole sentence composed by our code (which may quote client input), not one value. */
const SENTENCE_PARAMS = new Set(['detail_en', 'detail_ru', 'reason_en', 'reason_ru', 'reason']);
/** Longest such sentence a message repeats in full; ours stay far below it. */
const MAX_SENTENCE_CHARS = 4 * MAX_DISPLAY_CHARS;

/**
 * The params as messages may show them: a client string (a 1 MB model name, a param path
 * through a 1 MB key) is cut to MAX_DISPLAY_CHARS with a visible marker, a sentence to
 * MAX_SENTENCE_CHARS. The same object back when nothing is that long (the usual case).
 */
function boundedParams(params: MessageParams): MessageParams {
  let bounded: Record<string, string | number | undefined> | undefined;
  for (const name in params) {
    const value = params[name];
    if (typeof value !== 'string' || value.length <= MAX_DISPLAY_CHARS) continue;
    const cut = truncateForDisplay(value, SENTENCE_PARAMS.has(name) ? MAX_SENTENCE_CHARS : MAX_DISPLAY_CHARS);
    if (cut === value) continue;
    bounded ??= { ...params };
    bounded[name] = cut;
  }
  return bounded ?? params;
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
 * in its params and `param` are cut to a bounded length (see boundedParams).
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly params: MessageParams;
  readonly retryable: boolean;
  readonly retryAfter: number | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly upstream: UpstreamFailure | undefined;

  constructor(code: ErrorCode, options: GatewayErrorOptions = {}) {
    const definition = ERROR_CODES[code];
    const params = options.params === undefined ? {} : boundedParams(options.params);
    super(definition.message.en(params), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = definition.status;
    this.type = definition.type;
    this.param = options.param === undefined || options.param === null ? null : truncateForDisplay(options.param);
    this.params = params;
    this.retryable = options.retryable ?? definition.retryable;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
    this.upstream = options.upstream;
  }

  /** The message in the caller's language. */
  localizedMessage(language: Language): string {
    return language === 'en' ? this.message : ERROR_CODES[this.code].message[language](this.params);
  }
}

/** Creates a GatewayError by its registry code. */
export function gatewayError(code: ErrorCode, options?: GatewayErrorOptions): GatewayError {
  return new GatewayError(code, options);
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
