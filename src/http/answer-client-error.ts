import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { RequestContext } from '../context/request-context.js';
import type { ErrorCode } from '../errors/codes.js';
import { gatewayError, validationFailed, type GatewayError } from '../errors/gateway-error.js';
import type { GatewayServices } from '../gateway-services.js';
import type { Logger } from '../observability/logger.js';
import { Cancellation } from '../upstream/cancellation.js';
import { errorEnvelopeJson } from '../reply/error-envelope.js';
import { UNKNOWN_DOOR } from './request-area.js';
import { newRequestId } from './request-ids.js';

/**
 * A client error node:http caught before or while parsing a request (bad syntax, headers
 * too large, header or request time-out): answered in the spec's error format when the
 * socket can still take it, then closed. Logged and counted like a request.
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  logger: Logger,
  services: GatewayServices,
): void {
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!socket.writable || pending?.headersSent === true || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const code: ErrorCode =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'headers_too_large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADERS_TIMEOUT'
        ? 'request_timeout'
        : 'validation_failed';
  const snapshot = services.snapshot;
  const failure: GatewayError =
    code === 'request_timeout'
      ? gatewayError(code, {
          params: {
            what: 'request',
            timeout_ms: snapshot.config.http.requestTimeoutMs || snapshot.config.http.headersTimeoutMs,
          },
        })
      : code === 'validation_failed'
        ? validationFailed(null, 'http_request_malformed')
        : gatewayError(code);
  const requestId = newRequestId();
  const context: RequestContext = {
    requestId,
    correlationId: requestId,
    language: 'en',
    startedAt: performance.now(),
    snapshot,
    cancellation: Cancellation.aborted(undefined),
    abortCause: undefined,
    record: {
      frontDoor: 'chat',
      stream: false,
      attempts: [],
      clientAborted: false,
      status: failure.status,
      errorCode: failure.code,
    },
  };
  const body = errorEnvelopeJson(failure, context);
  socket.end(
    `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status] ?? 'Error'}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\nx-correlation-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
  );
  logger.info(
    { request_id: requestId, status: failure.status, error_code: failure.code, client_error: error.code },
    'request',
  );
  // No path was read: the request is a client's, at no known door.
  services.metrics.observeRequest(context.record, 0, UNKNOWN_DOOR);
  services.requestRecords?.countUnauthenticated((socket as Partial<Socket>).remoteAddress ?? 'unknown', failure.code);
}
