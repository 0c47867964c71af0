import { performance } from 'node:perf_hooks';
import { bookUsage, countedUsage } from '../billing/booked-usage.js';
import type { RequestCharge, RequestOutcome } from '../billing/billing.js';
import { asGatewayError, isClientGone } from '../errors/gateway-error.js';
import type { GatewayServices } from '../gateway-services.js';
import type { Logger } from '../observability/logger.js';
import type { Admission } from './admit.js';
import { authorize } from './authorize.js';
import { execute } from './execute.js';
import type { GatewayRequest, ReplySink, StreamSink } from './front-door.js';
import { relayStream } from './relay-stream.js';
import type { RequestContext } from '../context/request-context.js';
import { reserve } from './reserve.js';
import { affinityOutcome, route, type Routing } from './route.js';
import { settle } from './settle.js';

/**
 * Runs an admitted request that a front door has mapped in (docs/architecture.md):
 * authorize (404, 403) → reserve (402, 503) → route → execute with failover → relay →
 * settle, exactly once, in the one `finally`, however the request ends (success, node
 * failure, client gone, deadline, shutdown) → the reply's last bytes. The charge is
 * settled (and its usage row journaled) before the last bytes leave, so a client that has
 * its whole reply has been charged for it (docs/keys-and-money.md, crash guarantee). An error before the
 * first byte of a reply is thrown, for the front door's error renderer.
 */
export async function runRequest(
  services: GatewayServices,
  logger: Logger,
  context: RequestContext,
  admission: Admission,
  request: GatewayRequest,
  sink: ReplySink,
): Promise<void> {
  const { chat } = request;
  context.record.frontDoor = request.frontDoor;
  context.record.model = chat.model;
  context.record.stream = request.stream;
  context.record.endUser = request.endUser;
  const { model, effort } = authorize(context.snapshot.models, admission, request);
  context.record.modelServed = model.id;
  // The request record keeps the bodies of a model with `request_log.bodies` on (PRODUCT decision 28).
  if (model.requestLogBodies === true && context.record.bodies !== undefined) context.record.bodies.kept = true;
  const reserved = reserve(services, admission, model, chat, effort, request.features, request.endUser);
  const charge: RequestCharge = reserved instanceof Promise ? await reserved : reserved;
  const { config } = context.snapshot;
  let stream: StreamSink | undefined;
  let outcome: RequestOutcome = { status: 200 };
  /** The reply's last bytes, sent once the charge is settled. */
  let lastBytes: (() => void) | undefined;
  let routing: Routing | undefined;
  try {
    if (request.stream) {
      stream = sink.stream();
      stream.startKeepalive();
    }
    routing = route(context.snapshot.router, model, request);
    const execution = await execute(context, {
      request: chat,
      native: request.native,
      clientModel: chat.model,
      model,
      outputCap: charge.outputCap,
      effort,
      stream: request.stream,
      candidates: routing.candidates,
      maxAttempts: config.failover.maxAttempts,
      retryOnStatus: config.failover.retryOnStatus,
      maxRetryAfterSeconds: config.failover.maxRetryAfterSeconds,
      totalTimeoutMs: config.timeouts.totalMs,
    });
    if (execution.kind === 'json') {
      const usage = bookUsage(context.record, chat, execution.summary);
      const usageSent = countedUsage(execution.summary.usage) !== undefined;
      context.record.finishReason = execution.summary.finishReason;
      context.record.status = 200;
      context.record.firstByteMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
      const reply = {
        format: execution.format,
        body: execution.body,
        node: execution.node.id,
        summary: execution.summary,
        usage,
        usageSent,
      };
      lastBytes = () => sink.json(reply);
      return;
    }
    const streamSink = stream as StreamSink;
    charge.trackStream(context, chat, execution.reader.mapper.summary);
    const relayed = await relayStream(context, execution, streamSink, chat);
    if (relayed.kind === 'ended') {
      outcome = { status: 200, errorCode: context.record.errorCode };
      lastBytes = () => streamSink.end(relayed.end);
    } else if (relayed.kind === 'failed') {
      outcome = { status: 200, errorCode: context.record.errorCode };
      lastBytes = () => streamSink.fail(relayed.failure, relayed.end);
    } else {
      // A client that left mid-stream: what was produced is booked.
      outcome = { status: 200, errorCode: 'client_aborted' };
    }
  } catch (error) {
    outcome = failureOutcome(error, context);
    if (stream?.started !== true) throw error;
    // Once a keep-alive went out the status is 200: the error can only be an event.
    outcome = { ...outcome, status: 200 };
    const streamSink = stream;
    lastBytes = () => streamSink.fail(error, undefined);
  } finally {
    stream?.stopKeepalive();
    context.record.affinity = affinityOutcome(routing?.preferredNode, context.record.attempts);
    settle(services, logger, context, admission, charge, outcome, chat.n ?? 1);
    lastBytes?.();
  }
}

/** How a request that threw ended, for its usage row. */
function failureOutcome(error: unknown, context: RequestContext): RequestOutcome {
  if (context.abortCause === 'client' || isClientGone(error)) return { status: 499, errorCode: 'client_aborted' };
  const failure = asGatewayError(error);
  return {
    status: failure.upstream?.passThrough ? (failure.upstream.status ?? failure.status) : failure.status,
    errorCode: failure.code,
  };
}
