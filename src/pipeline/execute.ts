import { performance } from 'node:perf_hooks';
import { gatewayError, GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { adapterFor } from '../providers/registry.js';
import type { CallContext, ReplySummary } from '../providers/types.js';
import type { NodeCandidate } from '../routing/router.js';
import { UpstreamEventReader, type MappedBatch } from '../streaming/upstream-event-reader.js';
import { describeNetworkError } from '../upstream/describe-network-error.js';
import type { ReasoningEffort } from '../config/gateway-config.js';
import type { AttemptRecord, RequestContext } from './request-context.js';

/** How a request reached a node and what came back, ready to relay. */
export type Execution =
  | { readonly kind: 'json'; readonly body: string; readonly summary: ReplySummary }
  | { readonly kind: 'stream'; readonly reader: UpstreamEventReader; readonly first: MappedBatch };

export interface ExecuteOptions {
  readonly request: ChatRequest;
  readonly clientModel: string;
  readonly effort: ReasoningEffort | undefined;
  readonly stream: boolean;
  readonly candidates: readonly NodeCandidate[];
  readonly maxAttempts: number;
  readonly retryOnStatus: ReadonlySet<number>;
}

/** Bodies of node errors are kept up to this size (passed through, logged). */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

/**
 * Walks the candidates, failing over on node failures until one node answers well
 * (spec 8.3–8.5, PRODUCT.md decisions 1–3). For a stream, "answers well" means its first
 * event was mapped: until then nothing has reached the client and another node may be
 * tried. A client error from a node (non-retryable) is thrown at once, never retried.
 */
export async function execute(context: RequestContext, options: ExecuteOptions): Promise<Execution> {
  const { candidates, maxAttempts } = options;
  let lastError: GatewayError | undefined;
  let lastWasConnectionFailure = false;
  let tried = 0;
  for (const candidate of candidates) {
    if (tried === maxAttempts) break;
    tried++;
    const started = performance.now();
    const callContext: CallContext = {
      requestId: context.requestId,
      correlationId: context.correlationId,
      clientModel: options.clientModel,
      upstreamModel: candidate.upstreamModel,
      node: candidate.node,
      effort: options.effort,
      stream: options.stream,
      retryOnStatus: options.retryOnStatus,
    };
    const adapter = adapterFor(candidate.node.protocol);
    const call = adapter.toUpstream(options.request, callContext);
    let status: number | undefined;
    try {
      const response = await candidate.client.send(call, context.signal);
      status = response.statusCode;
      if (status < 200 || status >= 300) {
        const body = await readCapped(response.body, MAX_ERROR_BODY_BYTES);
        const contentType = headerValue(response.headers['content-type']);
        throw adapter.toError(status, body, contentType, callContext);
      }
      if (!options.stream) {
        const mapped = adapter.fromUpstream(await response.body.text(), callContext);
        recordAttempt(context, candidate, started, status);
        return { kind: 'json', body: mapped.body, summary: mapped.summary };
      }
      const reader = new UpstreamEventReader(response.body, adapter.streamMapper(callContext));
      try {
        const first = await reader.read();
        recordAttempt(context, candidate, started, status);
        return { kind: 'stream', reader, first };
      } catch (error) {
        reader.release();
        throw error;
      }
    } catch (error) {
      if (context.signal.aborted) {
        recordAttempt(context, candidate, started, status, context.abortCause === 'client' ? 'client aborted' : 'deadline');
        throw context.signal.reason;
      }
      const failure = isGatewayError(error) ? error : nodeFailure(candidate, error);
      recordAttempt(context, candidate, started, failure.upstream?.status ?? status, String(failure.params.reason ?? failure.code));
      if (!failure.retryable) throw failure;
      lastError = failure;
      lastWasConnectionFailure = failure.upstream?.status === undefined;
    }
  }
  const candidatesLeft = tried < candidates.length;
  if (candidatesLeft && lastWasConnectionFailure && lastError) {
    throw gatewayError('bad_gateway', { retryAfter: 1, params: lastError.params, upstream: lastError.upstream });
  }
  throw gatewayError('router_unavailable', {
    retryAfter: 1,
    params: {
      model: options.clientModel,
      reason: candidates.length === 0 ? 'no node serves it' : `all ${tried} node attempt(s) failed`,
    },
  });
}

function nodeFailure(candidate: NodeCandidate, error: unknown): GatewayError {
  return gatewayError('bad_gateway', {
    retryable: true,
    params: { reason: `node ${candidate.node.id}: ${describeNetworkError(error)}` },
    upstream: { nodeId: candidate.node.id },
    cause: error,
  });
}

function recordAttempt(context: RequestContext, candidate: NodeCandidate, started: number, status?: number, error?: string): void {
  const attempt: AttemptRecord = { node: candidate.node.id, ms: Math.round((performance.now() - started) * 100) / 100, status, error };
  context.record.attempts.push(attempt);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit);
}
