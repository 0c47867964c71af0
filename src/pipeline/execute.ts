import type { BookedUsage } from '../billing/booked-usage.js';
import type { OutputCap } from '../billing/estimate-request.js';
import type { ModelConfig, NodeConfig, ReasoningEffort } from '../config/gateway-config.js';
import type { AttemptRecord, FrontDoorName, RequestContext } from '../context/request-context.js';
import { asGatewayError, gatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { NativeRequest, ReplySummary } from '../providers/types.js';
import type { NodeCandidate } from '../routing/router.js';
import type { MappedBatch, UpstreamEventReader } from '../streaming/upstream-event-reader.js';
import { attempt } from './attempt.js';
import type { ReplyFormat } from './front-door.js';

/** A node's stream, committed: its first events mapped, ready to relay. */
export interface StreamExecution {
  readonly kind: 'stream';
  /** `native`: the node's own events, in the client's protocol; `internal`: chat chunks. */
  readonly format: ReplyFormat;
  readonly reader: UpstreamEventReader;
  readonly first: MappedBatch;
  /** The node that is streaming. */
  readonly node: NodeConfig;
  /** Gives the node's concurrency slot back; call when the relay is over. */
  readonly release: () => void;
}

/** How a request reached a node and what came back, ready to relay. */
export type Execution =
  | {
      readonly kind: 'json';
      readonly format: ReplyFormat;
      readonly body: string;
      readonly summary: ReplySummary;
      /** The node that answered. */
      readonly node: NodeConfig;
    }
  | StreamExecution;

export interface ExecuteOptions {
  /** The door the request came through: the chat door takes an OpenAI node's events as text. */
  readonly frontDoor: FrontDoorName;
  readonly request: ChatRequest;
  /** The client's request in its own protocol, for nodes that serve it natively. */
  readonly native: NativeRequest | undefined;
  readonly clientModel: string;
  /** The model as configured; adapters read its reasoning settings. */
  readonly model: ModelConfig;
  /** The per-choice output cap the reservation was priced on; every node is sent it. */
  readonly outputCap: OutputCap;
  readonly effort: ReasoningEffort | undefined;
  readonly stream: boolean;
  readonly candidates: readonly NodeCandidate[];
  readonly maxAttempts: number;
  readonly retryOnStatus: ReadonlySet<number>;
  /** The most Retry-After seconds passed on when every node tried was busy with a hint of its own. */
  readonly maxRetryAfterSeconds: number;
  /** The request deadline; a node with a shorter `total_ms` gets a per-attempt deadline. */
  readonly totalTimeoutMs: number;
  /** Called as each attempt ends, with the attempts so far (the last one included). */
  readonly onAttempt?: (attempts: readonly AttemptRecord[]) => void;
}

/** What execute did: the attempts it made, and the execution to relay or the failure that ends the request. */
export type Executed =
  | { readonly ok: true; readonly execution: Execution; readonly attempts: readonly AttemptRecord[] }
  | {
      readonly ok: false;
      readonly failure: unknown;
      readonly attempts: readonly AttemptRecord[];
      /** The usage booked for an attempt the request's own shape ended (request-own-failure.ts). */
      readonly usage?: BookedUsage;
    };

/**
 * Walks the candidates, failing over on node failures until one node answers well
 * (spec 8.3–8.5, PRODUCT.md decisions 1–3). Each attempt holds a concurrency slot on its
 * node; a full node is skipped without spending an attempt. For a stream, "answers well"
 * means its first event was mapped: until then nothing has reached the client and another
 * node may be tried. A client error from a node ends the request at once, never retried; so
 * does a failure the request's own shape explains (request-own-failure.ts), which is billed
 * and never counts against the node. Returns what happened; never throws.
 */
export async function execute(context: RequestContext, options: ExecuteOptions): Promise<Executed> {
  const attempts: AttemptRecord[] = [];
  try {
    const { candidates, maxAttempts } = options;
    let lastFailure: GatewayError | undefined;
    /** The smallest Retry-After of the nodes tried, and whether every one of them gave one. */
    let retryAfter: number | undefined;
    let everyHinted = true;
    let tried = 0;
    let index = 0;
    for (; index < candidates.length && tried < maxAttempts; index++) {
      const candidate = candidates[index] as NodeCandidate;
      const lease = candidate.state.tryAcquire();
      if (lease === false) continue;
      tried++;
      const outcome = await attempt(context, options, candidate, lease);
      attempts.push(outcome.attempt);
      options.onAttempt?.(attempts);
      if (outcome.ok) return { ok: true, execution: outcome.execution, attempts };
      if (!outcome.retryable) return { ok: false, failure: outcome.failure, attempts, usage: outcome.usage };
      lastFailure = asGatewayError(outcome.failure);
      everyHinted &&= outcome.retryAfter !== undefined;
      if (outcome.retryAfter !== undefined) retryAfter = Math.min(outcome.retryAfter, retryAfter ?? outcome.retryAfter);
    }
    return { ok: false, failure: exhausted(options, index, tried, lastFailure, everyHinted, retryAfter), attempts };
  } catch (error) {
    return { ok: false, failure: error, attempts };
  }
}

/** The failure of a request whose attempts are spent, or whose nodes were all busy. */
function exhausted(
  options: ExecuteOptions,
  index: number,
  tried: number,
  lastFailure: GatewayError | undefined,
  everyHinted: boolean,
  retryAfter: number | undefined,
): GatewayError {
  const candidatesLeft = options.candidates.slice(index).some((candidate) => candidate.state.isAvailable());
  if (candidatesLeft && lastFailure !== undefined && lastFailure.upstream?.status === undefined) {
    // Decision 2: budget spent with nodes left, the last one unreachable or talking nonsense.
    return gatewayError('bad_gateway', { retryAfter: 1, params: lastFailure.params, upstream: lastFailure.upstream });
  }
  // Every node tried was busy and said when to come back: the soonest, bounded (issue 28, finding 12).
  return gatewayError('router_unavailable', {
    retryAfter: everyHinted && retryAfter !== undefined ? Math.min(retryAfter, options.maxRetryAfterSeconds) : 1,
    params: {
      model: options.clientModel,
      reason: tried === 0 ? 'every node is busy, down or drained' : `${tried} node attempt(s) failed`,
    },
  });
}
