import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { checkAccess } from '../../billing/access-policy.js';
import { bookUsage } from '../../billing/booked-usage.js';
import { outputOverCap } from '../../billing/output-over-cap.js';
import type { RequestCharge } from '../../billing/billing.js';
import { asGatewayError, ClientGoneError, gatewayError } from '../../errors/gateway-error.js';
import { authenticate } from '../../pipeline/authenticate.js';
import { execute } from '../../pipeline/execute.js';
import { applyRateLimitsNow, chargeTokens, rateLimitSubject } from '../../pipeline/rate-limit.js';
import { relayStream } from '../../pipeline/relay-stream.js';
import type { RequestContext } from '../../pipeline/request-context.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { resolveReasoningEffort } from '../../protocol/openai/resolve-reasoning-effort.js';
import { parseChatRequest } from '../../protocol/openai/validate-chat-request.js';
import type { GatewayServices } from '../../gateway-services.js';
import type { Logger } from '../../observability/logger.js';
import type { BodyBudget } from '../body-budget.js';
import { readBody } from '../read-body.js';
import { withResponseHeaders } from '../response-headers.js';
import { SseResponse } from '../sse-response.js';

/** Where the client set the reasoning effort, if it did (names the `param` of a 403). */
function effortParam(request: ChatRequest): string | undefined {
  if (request.reasoning_effort !== undefined && request.reasoning_effort !== null) return 'reasoning_effort';
  if (request.reasoning?.effort !== undefined) return 'reasoning.effort';
  return undefined;
}

/** How a request that threw ended, for its usage row. */
function failureOutcome(error: unknown, context: RequestContext) {
  if (context.abortCause === 'client' || error instanceof ClientGoneError) return { status: 499, errorCode: 'client_aborted' };
  const failure = asGatewayError(error);
  return { status: failure.upstream?.passThrough ? failure.upstream.status ?? failure.status : failure.status, errorCode: failure.code };
}

/**
 * POST /v1/chat/completions (spec 4.1): authenticate (401) and apply the rate limits (429)
 * from the headers alone, read the body within the key's and the gateway's body budgets
 * (429, 503), validate (400), find the model (404), apply the account policy (403),
 * reserve the worst-case cost (402), then route, relay and settle the exact cost. JSON or
 * SSE, per `stream` in the body.
 */
export function chatCompletionsRoute(services: GatewayServices, logger: Logger, bodies: BodyBudget) {
  return async function handleChatCompletions(request: IncomingMessage, response: ServerResponse, context: RequestContext): Promise<void> {
    const { config } = services;
    const principal = authenticate(request.headers.authorization, services.accounts, context);
    const { key, account } = services.billing.entriesOf(principal);
    // Before the body (PRODUCT.md decision 22): a refused request never gets to pin one in memory.
    const limiter = services.limiter;
    const subject = rateLimitSubject(request, key, account, services.trustedProxies);
    const limited = applyRateLimitsNow(limiter, subject, context);
    if (limited !== undefined) await limited;
    const body = await readBody(request, config.http.bodyLimitBytes, config.http.bodyIdleTimeoutMs, bodies, key.record.id);
    if (config.log.bodies) context.record.requestBody = body;
    const chatRequest = parseChatRequest(body, config.http);
    context.record.model = chatRequest.model;
    const model = services.models.get(chatRequest.model);
    if (model === undefined) throw gatewayError('model_unavailable', { param: 'model', params: { model: chatRequest.model } });
    const stream = chatRequest.stream === true;
    context.record.stream = stream;
    const effort = checkAccess(key.record, account?.record, model, {
      stream,
      effort: resolveReasoningEffort(chatRequest, model),
      effortParam: effortParam(chatRequest),
    });
    // Every request that reaches a node is booked: with no room left to keep its row, none is sent.
    if (services.usage.full) throw gatewayError('usage_backlog_full', { retryAfter: 1 });
    const reserved = services.billing.reserve(key, account, model, chatRequest);
    const charge: RequestCharge = reserved instanceof Promise ? await reserved : reserved;
    const sink = stream ? new SseResponse(response, context, config.http.sseKeepaliveMs) : undefined;
    sink?.startKeepalive();
    try {
      const execution = await execute(context, {
        request: chatRequest,
        clientModel: model.id,
        model,
        outputCap: charge.outputCap,
        effort,
        stream,
        candidates: services.router.candidates(model),
        maxAttempts: config.failover.maxAttempts,
        retryOnStatus: config.failover.retryOnStatus,
        totalTimeoutMs: config.timeouts.totalMs,
      });
      if (execution.kind === 'json') {
        bookUsage(context.record, chatRequest, execution.summary);
        context.record.finishReason = execution.summary.finishReason;
        context.record.status = 200;
        context.record.firstByteMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
        charge.settle(context, { status: 200 });
        response.writeHead(200, withResponseHeaders(context, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(execution.body) }));
        response.end(execution.body);
        return;
      }
      // The stream is committed: the crash journal follows its usage until it settles.
      charge.trackStream(context, chatRequest, execution.reader.mapper.summary);
      await relayStream(context, execution.reader, execution.first, sink as SseResponse, {
        request: chatRequest,
        node: execution.node,
        release: execution.release,
        beforeEnd: () => charge.settle(context, { status: 200, errorCode: context.record.errorCode }),
      });
      // A client that left mid-stream: book what was produced.
      charge.settle(context, { status: 200, errorCode: context.record.clientAborted ? 'client_aborted' : context.record.errorCode });
    } catch (error) {
      const outcome = failureOutcome(error, context);
      charge.settle(context, sink?.started ? { ...outcome, status: 200 } : outcome);
      // Once a keep-alive went out the status is 200: the error can only be an event.
      if (sink?.started) sink.fail(error);
      else throw error;
    } finally {
      sink?.stopKeepalive();
      chargeTokens(limiter, subject, context.record.usage);
      const over = outputOverCap(context.record, charge.outputCap, chatRequest.n ?? 1);
      if (over !== undefined) {
        services.metrics.nodeOutputOverCap(over.node);
        logger.warn(
          { request_id: context.requestId, node: over.node, model: model.id, output_cap: over.capTokens, completion_tokens: over.completionTokens },
          'node reported more output tokens than the cap it was sent; charged what it reported',
        );
      }
    }
  };
}
