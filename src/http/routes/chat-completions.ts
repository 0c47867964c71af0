import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { gatewayError } from '../../errors/gateway-error.js';
import { authenticate } from '../../pipeline/authenticate.js';
import { execute } from '../../pipeline/execute.js';
import { relayStream } from '../../pipeline/relay-stream.js';
import type { RequestContext } from '../../pipeline/request-context.js';
import { resolveReasoningEffort } from '../../protocol/openai/resolve-reasoning-effort.js';
import { parseChatRequest } from '../../protocol/openai/validate-chat-request.js';
import type { GatewayServices } from '../../gateway-services.js';
import { readBody } from '../read-body.js';
import { responseHeaders } from '../response-headers.js';
import { SseResponse } from '../sse-response.js';

/** POST /v1/chat/completions (spec 4.1): JSON or SSE, per `stream` in the body. */
export function chatCompletionsRoute(services: GatewayServices) {
  return async function handleChatCompletions(request: IncomingMessage, response: ServerResponse, context: RequestContext): Promise<void> {
    const { config } = services;
    authenticate(request.headers.authorization, services.keys, context);
    const body = await readBody(request, config.http.bodyLimitBytes, config.http.bodyIdleTimeoutMs);
    if (config.log.bodies) context.record.requestBody = body;
    const chatRequest = parseChatRequest(body, config.http);
    context.record.model = chatRequest.model;
    const model = services.models.get(chatRequest.model);
    if (model === undefined) throw gatewayError('model_unavailable', { param: 'model', params: { model: chatRequest.model } });
    const stream = chatRequest.stream === true;
    context.record.stream = stream;
    const sink = stream ? new SseResponse(response, context, config.http.sseKeepaliveMs) : undefined;
    sink?.startKeepalive();
    try {
      const execution = await execute(context, {
        request: chatRequest,
        clientModel: model.id,
        effort: resolveReasoningEffort(chatRequest, model),
        stream,
        candidates: services.router.candidates(model),
        maxAttempts: config.failover.maxAttempts,
        retryOnStatus: config.failover.retryOnStatus,
        totalTimeoutMs: config.timeouts.totalMs,
      });
      if (execution.kind === 'json') {
        context.record.usage = execution.summary.usage ?? undefined;
        context.record.finishReason = execution.summary.finishReason;
        context.record.status = 200;
        context.record.firstByteMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
        response.writeHead(200, {
          ...responseHeaders(context),
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(execution.body),
        });
        response.end(execution.body);
        return;
      }
      await relayStream(context, execution.reader, execution.first, sink as SseResponse, {
        request: chatRequest,
        node: execution.node,
        release: execution.release,
      });
    } catch (error) {
      // Once a keep-alive went out the status is 200: the error can only be an event.
      if (sink?.started) sink.fail(error);
      else throw error;
    } finally {
      sink?.stopKeepalive();
    }
  };
}
