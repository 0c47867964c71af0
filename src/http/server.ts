import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  asGatewayError,
  gatewayError,
  isClientGone,
  validationFailed,
  type GatewayError,
} from '../errors/gateway-error.js';
import type { ErrorCode } from '../errors/codes.js';
import type { GatewayServices } from '../gateway-services.js';
import { requestLineLogger, type Logger } from '../observability/logger.js';
import type { FrontDoorName, RequestContext } from '../context/request-context.js';
import { Cancellation } from '../upstream/cancellation.js';
import { errorEnvelopeJson } from '../reply/error-envelope.js';
import { BodyBudget } from './body-budget.js';
import { InFlightRequests } from './in-flight-requests.js';
import { renderError } from './error-renderer.js';
import type { ErrorShape } from '../reply/error-shape.js';
import { preferredLanguage } from './preferred-language.js';
import { correlationIdFor, newRequestId } from './request-ids.js';
import type { FrontDoor } from '../front-doors/front-door.js';
import { chatDoor } from '../front-doors/chat/chat-door.js';
import { messagesDoor } from '../front-doors/messages/messages-door.js';
import { responsesDoor } from '../front-doors/responses/responses-door.js';
import { gatewayEnvelope } from '../front-doors/reasoning-envelope.js';
import { countTokensRoute, doorRoute } from './routes/door-route.js';
import { healthzRoute, readyzRoute } from './routes/health.js';
import { metricsRoute } from './routes/metrics.js';
import { MODEL_PATH_PREFIX, MODELS_ERROR_SHAPE, modelRoute, modelsRoute } from './routes/models.js';
import { STORED_RESPONSE_PATH_PREFIX, storedResponsesRoute } from './routes/stored-responses.js';
import type { adminRoute } from './admin/admin-route.js';
import { clientIp } from '../limits/client-ip.js';
import { requestLogRow } from '../request-log/request-log-row.js';
import type { consoleRoute } from './console/console-route.js';
import { doorLabelOf, OPS_PATHS, requestAreaOf, UNKNOWN_DOOR, type RequestArea } from './request-area.js';

export type RouteHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
) => Promise<void>;

export interface Route {
  readonly method: string;
  readonly handler: RouteHandler;
  /** The front door the route belongs to (the request record's label); `chat` when absent. */
  readonly frontDoor?: FrontDoorName;
  /** How the route's errors look (the door's shape); the OpenAI envelope when absent. */
  readonly errors?: ErrorShape;
}

/** After the grace period, how long cut requests get to write their last event before sockets are closed. */
const CUT_WAIT_MS = 2_000;

/** One request being handled. */
interface InFlightRequest {
  readonly context: RequestContext;
  readonly response: ServerResponse;
}

/** The client-facing HTTP server and its graceful stop. */
export interface GatewayHttpServer {
  readonly server: Server;
  /** Requests being handled now (handler running or response still open). */
  requestsInFlight(): number;
  isShuttingDown(): boolean;
  /**
   * Graceful stop: accepts no new connections, answers new requests on open keep-alive
   * connections with 503 shutting_down, lets in-flight requests and streams finish for up
   * to `graceMs`, then ends the rest (an SSE error event for a started stream, 503 for a
   * reply not started yet) and closes every connection. Resolves when all is closed.
   */
  shutdown(graceMs: number): Promise<{ readonly finished: number; readonly cut: number }>;
}

/** A fresh per-request context: ids, language, cancellation. */
export function newRequestContext(
  request: IncomingMessage,
  cancellation: Cancellation = new Cancellation(),
): RequestContext {
  const requestId = newRequestId();
  return {
    requestId,
    correlationId: correlationIdFor(request.headers['x-correlation-id'], requestId),
    language: preferredLanguage(request.headers['accept-language']),
    startedAt: performance.now(),
    cancellation,
    abortCause: undefined,
    record: { frontDoor: 'chat', stream: false, attempts: [], clientAborted: false },
  };
}

/**
 * The HTTP front: node:http (measured cheaper per request than a framework for a handful
 * of routes), a path table, one request context per request, one log line per request
 * (which also feeds the request metrics). Slow or malformed clients are answered in the
 * spec's error format where a response is still possible: header and body time-outs
 * (408), oversized headers (431), unparsable HTTP (400).
 */
export function createGatewayServer(services: GatewayServices, logger: Logger): GatewayHttpServer {
  let shuttingDown = false;
  const http = services.config.http;
  const bodies = new BodyBudget(() => services.config.http);
  // Reasoning artifacts of every front door are sealed with one secret (PRODUCT.md decision 17).
  const envelope = gatewayEnvelope(() => services.config.adminKey);
  // One line per front door (and one per count-tokens route): the door's folder holds the rest.
  const door = (frontDoor: FrontDoor): Route => doorRoute(services, logger, bodies, frontDoor);
  const counting = (frontDoor: FrontDoor): Route => countTokensRoute(services, bodies, frontDoor);
  const messages = messagesDoor(envelope);
  const responses = responsesDoor(envelope);
  const routes = new Map<string, Route>([
    ['/v1/chat/completions', door(chatDoor())],
    ['/v1/responses', door(responses)],
    ['/v1/responses/input_tokens', counting(responses)],
    ['/v1/messages', door(messages)],
    ['/v1/messages/count_tokens', counting(messages)],
    ['/v1/models', { method: 'GET', handler: modelsRoute(services), errors: MODELS_ERROR_SHAPE }],
    ['/healthz', { method: 'GET', handler: healthzRoute() }],
    ['/readyz', { method: 'GET', handler: readyzRoute(services, () => shuttingDown) }],
  ]);
  // With a separate metrics address, /metrics lives only there (see ops-server.ts).
  if (services.config.metrics.enabled && services.config.metrics.listen === undefined) {
    routes.set('/metrics', { method: 'GET', handler: metricsRoute(services, { requireAdminKey: true }) });
  }
  // The admin API (and its validators) is loaded by the first /admin/v1 request.
  let admin: Promise<ReturnType<typeof adminRoute>> | undefined;
  // The console (PRODUCT decision 24), loaded the same way by its first request; on only with the admin API.
  let operatorConsole: Promise<ReturnType<typeof consoleRoute>> | undefined;
  const oneModel = modelRoute(services);
  const storedResponse = storedResponsesRoute(services);
  const requestLog = requestLineLogger(logger);
  const inFlight = new InFlightRequests<InFlightRequest>();
  const tracing = services.tracing;
  let onIdle: (() => void) | undefined;

  /** The route's promise; throws at once for a request no route takes. */
  function dispatch(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
    path: string,
    route: Route | undefined,
  ): Promise<void> {
    if (shuttingDown && !OPS_PATHS.has(path)) throw gatewayError('shutting_down', { retryAfter: 1 });
    if (route === undefined) {
      if (path.startsWith('/admin/v1/')) {
        admin ??= import('./admin/admin-route.js').then(
          (module) => module.adminRoute(services),
          (error: unknown) => {
            admin = undefined; // tried again by the next admin request
            throw error;
          },
        );
        return admin.then((handle) => handle(request, response, context, path));
      }
      if ((path === '/console' || path.startsWith('/console/')) && services.config.adminKey !== undefined) {
        operatorConsole ??= import('./console/console-route.js').then(
          (module) => module.consoleRoute(services),
          (error: unknown) => {
            operatorConsole = undefined;
            throw error;
          },
        );
        return operatorConsole.then((handle) => handle(request, response, context, path));
      }
      // GET /v1/models/{id}: the id may itself hold slashes, so the rest of the path is the id.
      if (path.startsWith(MODEL_PATH_PREFIX) && path.length > MODEL_PATH_PREFIX.length) {
        if (request.method !== 'GET') {
          throw gatewayError('method_not_allowed', {
            params: { method: request.method, path, allow: 'GET' },
            headers: { allow: 'GET' },
          });
        }
        return oneModel(request, response, context, path);
      }
      // /v1/responses/{id} and /v1/responses/{id}/input_items (POST /v1/responses/… exact paths are in the table).
      if (path.startsWith(STORED_RESPONSE_PATH_PREFIX)) return storedResponse(request, response, context, path);
      throw gatewayError('no_route', { params: { method: request.method, path } });
    }
    if (route.method !== request.method) {
      throw gatewayError('method_not_allowed', {
        params: { method: request.method, path, allow: route.method },
        headers: { allow: route.method },
      });
    }
    return route.handler(request, response, context);
  }

  function finished(
    request: IncomingMessage,
    context: RequestContext,
    path: string,
    area: RequestArea,
    door: string,
  ): void {
    const totalMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
    if (area === 'ops') {
      requestLog.write('debug', { context, method: request.method, path, totalMs });
      return;
    }
    context.trace?.end(context);
    requestLog.write('info', { context, method: request.method, path, totalMs });
    // The operator's calls (admin API, console) are counted apart from the clients' (PRODUCT decision 30),
    // and are not in the request record.
    if (area !== 'client') {
      services.metrics.observeOperatorRequest(area, context.record);
      return;
    }
    services.metrics.observeRequest(context.record, totalMs, door);
    const records = services.requestRecords;
    if (records === undefined) return;
    // A request with a valid key gets a record; one without is only counted per address and reason.
    if (context.record.keyId !== undefined) {
      records.add(requestLogRow(context, request.method, path, totalMs, Date.now()));
    } else {
      const reason = context.record.clientAborted ? 'client_aborted' : (context.record.errorCode ?? 'none');
      records.countUnauthenticated(clientIp(request, services.trustedProxies), reason);
    }
  }

  const server = createServer(
    {
      headersTimeout: http.headersTimeoutMs,
      requestTimeout: http.requestTimeoutMs,
      keepAliveTimeout: http.keepAliveTimeoutMs,
      // How often node:http checks the two time-outs above (default 30 s: too coarse for short limits).
      connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(http.headersTimeoutMs / 4))),
    },
    (request, response) => {
      const context = newRequestContext(request);
      const { cancellation } = context;
      const path = pathOf(request.url);
      const route = routes.get(path);
      const area = requestAreaOf(path);
      const door = area === 'client' ? doorLabelOf(path, route) : UNKNOWN_DOOR;
      if (door === 'chat' || door === 'messages' || door === 'responses') context.record.frontDoor = door;
      if (tracing !== undefined && area === 'client') context.trace = tracing.startRequest(request, path, context);
      const entry: InFlightRequest = { context, response };
      const slot = inFlight.add(entry);
      if (shuttingDown) response.shouldKeepAlive = false;
      const totalMs = services.config.timeouts.totalMs;
      const deadline = setTimeout(() => {
        context.abortCause = 'deadline';
        cancellation.abort(gatewayError('upstream_timeout', { params: { timeout_ms: totalMs } }));
      }, totalMs);
      // One log line once both the handler has finished and the response is closed, so it
      // carries what the handler booked after a client disconnect (usage of a cut stream).
      let openParts = 2;
      const partDone = () => {
        if (--openParts !== 0) return;
        inFlight.remove(slot);
        finished(request, context, path, area, door);
        if (inFlight.size === 0) onIdle?.();
      };
      response.on('close', () => {
        clearTimeout(deadline);
        if (!response.writableFinished) {
          context.record.clientAborted = true;
          if (!cancellation.aborted) {
            context.abortCause = 'client';
            cancellation.abort(gatewayError('client_gone'));
          }
        }
        partDone();
      });

      const failed = (error: unknown): void => {
        try {
          if (context.abortCause === 'client' || isClientGone(error)) return;
          const gatewayFailure = asGatewayError(error);
          if (gatewayFailure.code === 'internal_error')
            logger.error({ err: error, request_id: context.requestId }, 'unexpected error');
          const shape = route?.errors ?? (path.startsWith(MODEL_PATH_PREFIX) ? MODELS_ERROR_SHAPE : undefined);
          renderError(response, gatewayFailure, context, http, shape);
        } catch (renderFailure) {
          logger.error({ err: renderFailure, request_id: context.requestId }, 'could not send the error response');
          response.destroy();
        } finally {
          partDone();
        }
      };
      try {
        // One reaction for both outcomes (not .catch().finally(): two promises more per request).
        dispatch(request, response, context, path, route).then(partDone, failed);
      } catch (error) {
        failed(error);
      }
    },
  );
  server.maxConnections = http.maxConnections > 0 ? http.maxConnections : Number.POSITIVE_INFINITY;
  server.on('drop', () => services.metrics.connectionDropped());
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket, logger, services),
  );

  const waitIdle = (timeoutMs: number) =>
    new Promise<boolean>((resolve) => {
      if (inFlight.size === 0) return resolve(true);
      const timer = setTimeout(() => {
        onIdle = undefined;
        resolve(false);
      }, timeoutMs);
      onIdle = () => {
        clearTimeout(timer);
        onIdle = undefined;
        resolve(true);
      };
    });

  return {
    server,
    requestsInFlight: () => inFlight.size,
    isShuttingDown: () => shuttingDown,
    async shutdown(graceMs: number) {
      shuttingDown = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const atStart = inFlight.size;
      for (const entry of inFlight) if (!entry.response.headersSent) entry.response.shouldKeepAlive = false;
      let cut = 0;
      if (!(await waitIdle(graceMs))) {
        for (const entry of inFlight) {
          if (entry.context.cancellation.aborted) continue;
          cut++;
          entry.context.abortCause = 'shutdown';
          entry.context.cancellation.abort(gatewayError('shutting_down', { retryAfter: 1 }));
        }
        await waitIdle(CUT_WAIT_MS);
      }
      server.closeAllConnections();
      await closed;
      return { finished: atStart - cut, cut };
    },
  };
}

export function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * A client error node:http caught before or while parsing a request (bad syntax, headers
 * too large, header or request time-out): answered in the spec's error format when the
 * socket can still take it, then closed. Logged and counted like a request.
 */
function answerClientError(
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
  const failure: GatewayError =
    code === 'request_timeout'
      ? gatewayError(code, {
          params: {
            what: 'request',
            timeout_ms: services.config.http.requestTimeoutMs || services.config.http.headersTimeoutMs,
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
