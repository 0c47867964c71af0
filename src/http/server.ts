import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { asGatewayError, ClientGoneError, gatewayError } from '../errors/gateway-error.js';
import type { GatewayServices } from '../gateway-services.js';
import type { Logger } from '../observability/logger.js';
import type { RequestContext } from '../pipeline/request-context.js';
import { renderError } from './error-renderer.js';
import { preferredLanguage } from './preferred-language.js';
import { correlationIdFor, newRequestId } from './request-ids.js';
import { chatCompletionsRoute } from './routes/chat-completions.js';
import { modelsRoute } from './routes/models.js';
import { adminRoute } from './admin/admin-route.js';

type RouteHandler = (request: IncomingMessage, response: ServerResponse, context: RequestContext) => Promise<void>;

interface Route {
  readonly method: string;
  readonly handler: RouteHandler;
}

/**
 * The HTTP front: node:http (measured cheaper per request than a framework for a handful
 * of routes), a path table, one request context per request, one log line per request.
 */
export function createGatewayServer(services: GatewayServices, logger: Logger): Server {
  const routes = new Map<string, Route>([
    ['/v1/chat/completions', { method: 'POST', handler: chatCompletionsRoute(services) }],
    ['/v1/models', { method: 'GET', handler: modelsRoute(services) }],
  ]);
  const admin = adminRoute(services);

  async function dispatch(request: IncomingMessage, response: ServerResponse, context: RequestContext): Promise<void> {
    const path = pathOf(request.url);
    const route = routes.get(path);
    if (route === undefined) {
      if (path.startsWith('/admin/v1/')) return admin(request, response, context, path);
      throw gatewayError('model_unavailable', { params: { method: request.method, path } });
    }
    if (route.method !== request.method) {
      throw gatewayError('method_not_allowed', { params: { method: request.method, path, allow: route.method }, headers: { allow: route.method } });
    }
    return route.handler(request, response, context);
  }

  const server = createServer((request, response) => {
    const requestId = newRequestId();
    const controller = new AbortController();
    const context: RequestContext = {
      requestId,
      correlationId: correlationIdFor(request.headers['x-correlation-id'], requestId),
      language: preferredLanguage(request.headers['accept-language']),
      startedAt: performance.now(),
      signal: controller.signal,
      abortCause: undefined,
      record: { stream: false, attempts: [], clientAborted: false },
    };
    const totalMs = services.config.timeouts.totalMs;
    const deadline = setTimeout(() => {
      context.abortCause = 'deadline';
      controller.abort(gatewayError('upstream_timeout', { params: { timeout_ms: totalMs } }));
    }, totalMs);
    // One log line once both the handler has finished and the response is closed, so it
    // carries what the handler booked after a client disconnect (usage of a cut stream).
    let openParts = 2;
    const partDone = () => {
      if (--openParts === 0) logRequest(logger, request, context);
    };
    response.on('close', () => {
      clearTimeout(deadline);
      if (!response.writableFinished) {
        context.record.clientAborted = true;
        if (!controller.signal.aborted) {
          context.abortCause = 'client';
          controller.abort(new ClientGoneError());
        }
      }
      partDone();
    });

    dispatch(request, response, context)
      .catch((error: unknown) => {
        if (context.abortCause === 'client' || error instanceof ClientGoneError) return;
        const gatewayFailure = asGatewayError(error);
        if (gatewayFailure.code === 'internal_error') logger.error({ err: error, request_id: requestId }, 'unexpected error');
        renderError(response, gatewayFailure, context);
      })
      .finally(partDone);
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 30_000;
  server.requestTimeout = 0;
  return server;
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function logRequest(logger: Logger, request: IncomingMessage, context: RequestContext): void {
  const record = context.record;
  logger.info(
    {
      request_id: context.requestId,
      correlation_id: context.correlationId,
      method: request.method,
      path: pathOf(request.url),
      status: record.status,
      error_code: record.errorCode,
      key_prefix: record.keyPrefix,
      account: record.accountId,
      model: record.model,
      stream: record.stream,
      attempts: record.attempts.length > 0 ? record.attempts : undefined,
      usage: record.usage,
      usage_estimated: record.usageEstimated,
      finish_reason: record.finishReason,
      first_byte_ms: record.firstByteMs,
      total_ms: Math.round((performance.now() - context.startedAt) * 100) / 100,
      client_aborted: record.clientAborted || undefined,
    },
    'request',
  );
}
