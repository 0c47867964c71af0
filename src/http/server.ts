import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { gatewayError } from '../errors/gateway-error.js';
import type { GatewayServices } from '../gateway-services.js';
import type { Logger } from '../observability/logger.js';
import type { FrontDoorName, RequestContext } from '../context/request-context.js';
import { answerClientError } from './answer-client-error.js';
import { answerRequestFailure } from './answer-request-failure.js';
import { BodyBudget } from './body-budget.js';
import { dispatchRequest } from './dispatch-request.js';
import type { ErrorShape } from '../reply/error-shape.js';
import { gatewayRoutes } from './gateway-routes.js';
import { InFlightRequests } from './in-flight-requests.js';
import { newRequestContext } from './new-request-context.js';
import { requestFinisher } from './request-finisher.js';
import { doorLabelOf, requestAreaOf, UNKNOWN_DOOR } from './request-area.js';
import { MODEL_PATH_PREFIX, MODELS_ERROR_SHAPE } from './routes/models.js';

export { newRequestContext } from './new-request-context.js';

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

/**
 * The HTTP front: node:http (measured cheaper per request than a framework for a handful
 * of routes), a path table, one request context per request (with the configuration
 * snapshot the request runs under), one log line per request (which also feeds the request
 * metrics). Slow or malformed clients are answered in the spec's error format where a
 * response is still possible: header and body time-outs (408), oversized headers (431),
 * unparsable HTTP (400).
 */
export function createGatewayServer(services: GatewayServices, logger: Logger): GatewayHttpServer {
  let shuttingDown = false;
  const isShuttingDown = () => shuttingDown;
  // The server's own time-outs and connection cap are fixed at start, like its address.
  const http = services.snapshot.config.http;
  const bodies = new BodyBudget(() => services.snapshot.config.http);
  const routes = gatewayRoutes(services, logger, bodies, isShuttingDown);
  const dispatch = dispatchRequest(services, isShuttingDown);
  const finished = requestFinisher(services, logger);
  const inFlight = new InFlightRequests<InFlightRequest>();
  const tracing = services.tracing;
  let onIdle: (() => void) | undefined;

  function handleRequest(request: IncomingMessage, response: ServerResponse): void {
    // The one read of the configuration: the request runs under this snapshot to its end.
    const context = newRequestContext(request, services.snapshot);
    const { cancellation } = context;
    const path = pathOf(request.url);
    const route = routes.get(path);
    const area = requestAreaOf(path);
    const door = area === 'client' ? doorLabelOf(path, route) : UNKNOWN_DOOR;
    if (door === 'chat' || door === 'messages' || door === 'responses') context.record.frontDoor = door;
    if (tracing !== undefined && area === 'client') context.trace = tracing.startRequest(request, path, context);
    const slot = inFlight.add({ context, response });
    if (shuttingDown) response.shouldKeepAlive = false;
    const totalMs = context.snapshot.config.timeouts.totalMs;
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
      const shape = route?.errors ?? (path.startsWith(MODEL_PATH_PREFIX) ? MODELS_ERROR_SHAPE : undefined);
      answerRequestFailure(response, error, context, shape, logger);
      partDone();
    };
    try {
      // One reaction for both outcomes (not .catch().finally(): two promises more per request).
      dispatch(request, response, context, path, route).then(partDone, failed);
    } catch (error) {
      failed(error);
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
    handleRequest,
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
    isShuttingDown,
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
