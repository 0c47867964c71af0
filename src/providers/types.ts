import type { OutputCap } from '../billing/estimate-request.js';
import type { ModelConfig, NativeApi, NodeConfig, ReasoningEffort } from '../config/gateway-config.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import type { StreamMapper } from '../streaming/stream-mapper.js';
import type { StreamForm } from '../streaming/stream-events.js';

/** A wire format a node can speak (the keys of the registry). Groq, vLLM, OpenRouter… are all `openai` nodes. */
export type { WireProtocol } from '../config/wire-protocols.js';

/** Everything an adapter may know about one call; no I/O handles. */
export interface CallContext {
  readonly requestId: string;
  readonly correlationId: string;
  /** The model id the client asked for. */
  readonly clientModel: string;
  /** The model's name on this node. */
  readonly upstreamModel: string;
  readonly node: NodeConfig;
  /** The model as configured (reasoning settings); the output cap to send is `outputCap`. */
  readonly model: ModelConfig;
  /** The per-choice output cap the request's reservation was priced on: the node is sent it (PRODUCT.md decision 20). */
  readonly outputCap: OutputCap;
  /** Effort to request, already resolved; undefined for a model without reasoning. */
  readonly effort: ReasoningEffort | undefined;
  readonly stream: boolean;
  /**
   * The form the client's door takes a translated stream in: `text` (the chat door, which
   * sends chunk events on as they are: a same-protocol node's events may pass through as
   * text) or `chunks` (objects, the default: for a door that maps them, or a stream
   * filtered chunk by chunk). A native relay gives text whatever this says.
   */
  readonly streamForm?: StreamForm;
  /** Node statuses that mean "try another node" (PRODUCT.md decision 1). */
  readonly retryOnStatus: ReadonlySet<number>;
}

/**
 * The client's request in its own protocol, for a node that serves that protocol natively
 * (an Anthropic node for `messages`, an OpenAI node configured `apis: [chat, responses]`
 * for `responses`): such a node is sent the client's body unchanged except the model name
 * and the fields the gateway owns (the reserved output cap), PRODUCT.md decision 15.
 */
export interface NativeRequest {
  readonly api: NativeApi;
  /** The client's body, parsed and validated. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Client headers forwarded unchanged to a native node (e.g. `anthropic-version`, `anthropic-beta`), names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The HTTP request to send to a node; the executor performs it. */
export interface UpstreamCall {
  /** Joined to the node's base URL. */
  readonly path: string;
  readonly headers: Record<string, string>;
  /** Serialized JSON body. */
  readonly body: string;
  /** The node is asked for a streamed reply: a large body is then let go of once sent (upstream/dispatch-body.ts). */
  readonly stream: boolean;
}

/** What a reply told us, for accounting and logs. */
export interface ReplySummary {
  usage: Usage | undefined;
  finishReason: string | undefined;
  /** Characters of reasoning and answer text seen; lets usage be estimated when a stream is cut. */
  reasoningCharacters: number;
  contentCharacters: number;
  /** Server-tool calls the node reported, by tool (`web_search`: 2), when it ran any (priced: docs/keys-and-money.md). */
  serverToolCalls?: Record<string, number>;
  /** The service tier the node reported serving the request in, when it said. */
  serviceTier?: string;
}

/** A non-streaming 2xx reply mapped for the client. */
export interface MappedCompletion {
  /** JSON text of the OpenAI `chat.completion` to send. */
  readonly body: string;
  readonly summary: ReplySummary;
}

/**
 * Translates between the OpenAI chat-completions protocol clients speak and one wire
 * protocol. Pure: never performs I/O, reads config files, touches a store or sleeps.
 */
export interface ProviderAdapter {
  /** The protocol's name, as in the registry and in `provider:` of the configuration. */
  readonly protocol: string;
  /** Throws GatewayError (validation_failed) for input the protocol cannot express. */
  toUpstream(request: ChatRequest, context: CallContext): UpstreamCall;
  /** Maps a non-streaming 2xx body; throws bad_gateway for a body that is not a valid reply. */
  fromUpstream(bodyText: string, context: CallContext): MappedCompletion;
  streamMapper(context: CallContext): StreamMapper;
  /**
   * The client-facing APIs this protocol serves natively, for nodes whose `nativeApis` list
   * them: the client's request passes through (PRODUCT.md decision 15).
   */
  readonly native?: { readonly [api in NativeApi]?: NativeAdapter };
  /** Classifies a non-2xx node reply: retryable (try another node) or passed through to the client. */
  toError(status: number, body: Buffer, contentType: string | undefined, context: CallContext): GatewayError;
}

/**
 * Passes a client's request in the node's own protocol through (a front door's native
 * path): the same contract as ProviderAdapter's, but the reply and the stream stay in that
 * protocol; only the summary (usage in chat terms, finish reason) is read for the gateway.
 */
export interface NativeAdapter {
  /** The client's body unchanged except `model` (`context.upstreamModel`) and the reserved output cap (`context.outputCap`); the node's credentials; the client's forwarded headers. */
  toUpstream(request: NativeRequest, context: CallContext): UpstreamCall;
  /** The node's reply with the client's model id put back (`MappedCompletion.body`), and what it told. */
  fromUpstream(bodyText: string, context: CallContext): MappedCompletion;
  /** Relays the node's events (framed, through `write`), filling `summary` from its usage events. */
  streamMapper(context: CallContext): StreamMapper;
}

/** A fresh, empty summary. */
export function emptySummary(): ReplySummary {
  return { usage: undefined, finishReason: undefined, reasoningCharacters: 0, contentCharacters: 0 };
}
