import { performance } from 'node:perf_hooks';
import { bookedUsage, estimatedPromptTokens, type BookedUsage } from '../billing/booked-usage.js';
import type { RequestCharge, RequestOutcome } from '../billing/billing.js';
import type { ModelConfig, ReasoningEffort } from '../config/gateway-config.js';
import type { AttemptRecord, RequestContext, RequestRun } from '../context/request-context.js';
import { whenReady } from '../context/when-ready.js';
import { asGatewayError, isClientGone } from '../errors/gateway-error.js';
import type { GatewayServices } from '../gateway-services.js';
import type { Logger } from '../observability/logger.js';
import type { Admission } from './admit.js';
import { authorize } from './authorize.js';
import { execute, type StreamExecution } from './execute.js';
import type { GatewayReply, GatewayRequest, ReplySink, StreamSink } from './front-door.js';
import { relayStream } from './relay-stream.js';
import { reserve } from './reserve.js';
import { affinityOutcome, route, type Routing } from './route.js';
import { settle } from './settle.js';
import { writeRecord } from './write-record.js';

const NO_ATTEMPTS: readonly AttemptRecord[] = [];

/**
 * Runs an admitted request that a front door has mapped in (docs/architecture.md):
 * authorize (404, 403) → reserve (402, 503) → route → execute with failover → relay →
 * settle, exactly once, in the one `finally`, however the request ends (success, node
 * failure, client gone, deadline, shutdown) → the reply's last bytes. The stages hand back
 * values (execute its attempts and execution, relay the usage and how the stream ended);
 * settle books from them and the request record is written from them in one step. The
 * charge is settled (and its usage row journaled) before the last bytes leave, so a client
 * that has its whole reply has been charged for it (docs/keys-and-money.md, crash
 * guarantee). An error before the first byte of a reply is a rejection, for the front
 * door's error renderer.
 */
export function runRequest(
  services: GatewayServices,
  logger: Logger,
  context: RequestContext,
  admission: Admission,
  request: GatewayRequest,
  sink: ReplySink,
): Promise<void> {
  let served: ModelConfig | undefined;
  try {
    const { model, effort } = authorize(context.snapshot.models, admission, request);
    served = model;
    // The request record keeps the bodies of a model with `request_log.bodies` on (PRODUCT decision 28).
    if (model.requestLogBodies === true && context.record.bodies !== undefined) context.record.bodies.kept = true;
    const { chat } = request;
    const reserved = reserve(
      services,
      admission,
      model,
      chat,
      effort,
      request.features,
      request.endUser,
      request.leftOut,
    );
    // A reservation that had to wait (budget windows not cached) goes on when it is made.
    return whenReady(
      reserved,
      (charge) => runCharged(services, logger, context, admission, request, sink, model, effort, charge),
      (refusal) => refused(context, request, model, refusal),
    );
  } catch (refusal) {
    return refused(context, request, served, refusal);
  }
}

/** A request refused before it was charged (404, 403, 402, 503): its record says what it asked for. */
function refused(
  context: RequestContext,
  request: GatewayRequest,
  model: ModelConfig | undefined,
  refusal: unknown,
): Promise<never> {
  writeRecord(context.record, requestRun(askedOf(request, model), NOTHING_YET));
  return Promise.reject(refusal);
}

/** What the request asked for, as its run and record show it: all a run keeps of the request. */
interface Asked {
  readonly frontDoor: RequestRun['frontDoor'];
  readonly model: string;
  readonly modelServed: string | undefined;
  readonly endUser: string | undefined;
  readonly stream: boolean;
  /** The choices asked for (`n`), for the output cap's check at settle. */
  readonly choices: number;
}

function askedOf(request: GatewayRequest, model: ModelConfig | undefined): Asked {
  const { chat } = request;
  return {
    frontDoor: request.frontDoor,
    model: chat.model,
    modelServed: model?.id,
    endUser: request.endUser,
    stream: request.stream,
    choices: chat.n ?? 1,
  };
}

/** What the stages returned so far. */
type RunProgress = Pick<RequestRun, 'attempts'> &
  Partial<Pick<RequestRun, 'affinity' | 'booked' | 'finishReason' | 'firstByteMs' | 'streamErrorCode'>>;

const NOTHING_YET: RunProgress = { attempts: NO_ATTEMPTS };

/**
 * The request's run: what it asked and what the stages returned so far. Every field is
 * written, always in this order, so every run has one object shape: a spread of the asked
 * part into a literal with more fields went to V8's slow path, ~4 % of a JSON request's CPU.
 */
function requestRun(asked: Asked, progress: RunProgress): RequestRun {
  return {
    frontDoor: asked.frontDoor,
    model: asked.model,
    modelServed: asked.modelServed,
    endUser: asked.endUser,
    stream: asked.stream,
    attempts: progress.attempts,
    affinity: progress.affinity,
    booked: progress.booked,
    finishReason: progress.finishReason,
    firstByteMs: progress.firstByteMs,
    streamErrorCode: progress.streamErrorCode,
  };
}

/**
 * How the node call ended (route and execute with failover), as a value for the run's end:
 * a JSON reply, a committed stream, or the failure that ended it; with the attempts made
 * and the session's preferred node.
 */
type Dispatched = { readonly attempts: readonly AttemptRecord[]; readonly preferredNode: string | undefined } & (
  | { readonly kind: 'failed'; readonly failure: unknown; readonly booked: BookedUsage | undefined }
  | {
      readonly kind: 'json';
      readonly firstByteMs: number;
      readonly booked: BookedUsage;
      readonly reply: GatewayReply;
    }
  | {
      readonly kind: 'stream';
      readonly firstByteMs: number;
      readonly execution: StreamExecution;
      /** The prompt's estimated tokens: what the stream keeps of the request. */
      readonly promptTokens: number;
    }
);

/**
 * The charged part of a request. The node call runs in a frame of its own (`dispatch`) that
 * ends when the call does; the relay, settle and the reply's last bytes (`endCharged`) keep
 * only what the request asked (`Asked`) and the prompt's estimated tokens. A suspended async
 * frame keeps its parameters and registers, so a stream would otherwise hold the parsed
 * request, the whole prompt, for as long as it streams.
 */
function runCharged(
  services: GatewayServices,
  logger: Logger,
  context: RequestContext,
  admission: Admission,
  request: GatewayRequest,
  sink: ReplySink,
  model: ModelConfig,
  effort: ReasoningEffort | undefined,
  charge: RequestCharge,
): Promise<void> {
  const asked = askedOf(request, model);
  let stream: StreamSink | undefined;
  let dispatched: Promise<Dispatched>;
  try {
    if (request.stream) {
      stream = sink.stream();
      stream.startKeepalive();
    }
    dispatched = dispatch(context, request, model, effort, charge, asked);
  } catch (failure) {
    dispatched = Promise.resolve({ kind: 'failed', failure, booked: undefined, ...NOT_ROUTED });
  }
  return endCharged(services, logger, context, admission, charge, asked, sink, stream, dispatched);
}

const NOT_ROUTED = { attempts: NO_ATTEMPTS, preferredNode: undefined } as const;

/** Routes the request and calls its nodes with failover (`execute`); never rejects: a failure is a value. */
async function dispatch(
  context: RequestContext,
  request: GatewayRequest,
  model: ModelConfig,
  effort: ReasoningEffort | undefined,
  charge: RequestCharge,
  asked: Asked,
): Promise<Dispatched> {
  const { chat } = request;
  const { config } = context.snapshot;
  let routing: Routing | undefined;
  try {
    routing = route(context.snapshot.router, model, request);
    const executed = await execute(context, {
      frontDoor: request.frontDoor,
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
      // The reply's headers (x-switchyard-attempts) and the doors' sinks (the answering node)
      // read the attempts: the record has each as it ends, for headers that a keep-alive
      // sends while the next attempt waits (they count the attempts finished by then).
      onAttempt: (finished) => writeRecord(context.record, requestRun(asked, { attempts: finished })),
    });
    const { attempts } = executed;
    const { preferredNode } = routing;
    if (!executed.ok)
      return { kind: 'failed', failure: executed.failure, booked: executed.usage, attempts, preferredNode };
    const { execution } = executed;
    const firstByteMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
    if (execution.kind === 'stream') {
      const promptTokens = estimatedPromptTokens(chat);
      return { kind: 'stream', firstByteMs, execution, promptTokens, attempts, preferredNode };
    }
    const booked = bookedUsage(chat, execution.summary);
    const reply: GatewayReply = {
      format: execution.format,
      body: execution.body,
      node: execution.node.id,
      summary: execution.summary,
      usage: booked.usage,
      usageSent: booked.sent,
    };
    return { kind: 'json', firstByteMs, booked, reply, attempts, preferredNode };
  } catch (failure) {
    return { kind: 'failed', failure, booked: undefined, attempts: NO_ATTEMPTS, preferredNode: routing?.preferredNode };
  }
}

/**
 * The run's end: the stream relayed; then, in the one `finally`, settle and the record from
 * the values the stages returned, and the reply's last bytes.
 */
async function endCharged(
  services: GatewayServices,
  logger: Logger,
  context: RequestContext,
  admission: Admission,
  charge: RequestCharge,
  asked: Asked,
  sink: ReplySink,
  stream: StreamSink | undefined,
  dispatched: Promise<Dispatched>,
): Promise<void> {
  let outcome: RequestOutcome = { status: 200 };
  /** The reply's last bytes, sent once the charge is settled. */
  let lastBytes: (() => void) | undefined;
  let attempts = NO_ATTEMPTS;
  let preferredNode: string | undefined;
  let booked: BookedUsage | undefined;
  let finishReason: string | undefined;
  let firstByteMs: number | undefined;
  let streamErrorCode: string | undefined;
  try {
    const done = await dispatched;
    ({ attempts, preferredNode } = done);
    if (done.kind === 'failed') {
      booked = done.booked;
      throw done.failure;
    }
    firstByteMs = done.firstByteMs;
    if (done.kind === 'json') {
      booked = done.booked;
      finishReason = done.reply.summary.finishReason;
      const { reply } = done;
      lastBytes = () => sink.json(reply);
      return;
    }
    const { execution, promptTokens } = done;
    const streamSink = stream as StreamSink;
    charge.trackStream(
      context,
      requestRun(asked, { attempts, firstByteMs }),
      promptTokens,
      execution.reader.mapper.summary,
    );
    const relayed = await relayStream(context, execution, streamSink, promptTokens);
    booked = relayed.booked;
    finishReason = relayed.finishReason;
    if (relayed.kind === 'ended') {
      lastBytes = () => streamSink.end(relayed.end);
    } else if (relayed.kind === 'failed') {
      outcome = { status: 200, errorCode: relayed.errorCode };
      streamErrorCode = asGatewayError(relayed.failure).code;
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
    streamErrorCode = asGatewayError(error).code;
    const streamSink = stream;
    lastBytes = () => streamSink.fail(error, undefined);
  } finally {
    stream?.stopKeepalive();
    const affinity = affinityOutcome(preferredNode, attempts);
    const run = requestRun(asked, { attempts, affinity, booked, finishReason, firstByteMs, streamErrorCode });
    const costUsd = settle(services, logger, context, admission, charge, outcome, run, asked.choices);
    writeRecord(context.record, run, costUsd);
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
