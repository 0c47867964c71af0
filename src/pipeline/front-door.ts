import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { Usage } from '../protocol/openai/chat-response-types.js';
import type { FrontDoorName } from '../context/request-context.js';
import type { NativeApi } from '../config/gateway-config.js';
import type { NativeRequest, ReplySummary } from '../providers/types.js';
import type { FeatureUse } from '../billing/feature-prices.js';
import type { LeftOut } from '../billing/unresolved-inputs.js';
import type { NodeConfig } from '../config/gateway-config.js';
import type { StreamEvents } from '../streaming/stream-events.js';

/**
 * The seam between a front door (a client-facing protocol) and the one pipeline that runs
 * every request (docs/architecture.md). A front door maps its request in, and the
 * pipeline's reply, stream and errors out; the pipeline never knows which door a request
 * came through except as the label for logs, metrics and the ledger.
 *
 * The internal request is a chat-completions request (`ChatRequest`): every node adapter
 * translates from it. The internal reply is a `chat.completion` (JSON text), and an
 * internal stream is a sequence of `chat.completion.chunk`s: objects for a door that maps
 * them, and for the chat door, which serializes them, objects or, from an OpenAI-protocol
 * node, its events passed through as text (`data: <json>\n\n`). A door whose protocol the
 * chosen node speaks natively also hands its request as it came (`NativeRequest`); the
 * node's reply then comes back `native`, in the door's protocol (text).
 */
export type { FrontDoorName, NativeApi, NativeRequest, StreamEvents };

/** A request as a front door hands it to the pipeline. */
export interface GatewayRequest {
  readonly frontDoor: FrontDoorName;
  /**
   * The request in the internal form: what a translated node is sent, and what the
   * reservation, the policy and the usage estimates read, whichever node answers.
   */
  readonly chat: ChatRequest;
  /** The request in the client's own protocol, for nodes that serve it natively. */
  readonly native?: NativeRequest;
  readonly stream: boolean;
  /** Where the client set the reasoning effort, if it did (names the `param` of a 403). */
  readonly effortParam: string | undefined;
  /**
   * A node to try first while it is healthy and serves the model: the one that made a
   * provider-owned artifact the request carries back (a thinking signature, encrypted
   * reasoning, a previous response), PRODUCT.md decision 17.
   */
  readonly affinityNode?: string;
  /**
   * The priced features (server tools, betas) the model allows that the request may use on
   * a native node: the reservation covers them, settlement prices what the node reports.
   */
  readonly features?: FeatureUse;
  /**
   * The end user the client names (PRODUCT decision 27): the `x-switchyard-user` header
   * wins, else the door's own field; cut to 128 characters. Undefined when none is given.
   */
  readonly endUser?: string;
  /**
   * The session this request belongs to, for session affinity (PRODUCT decision 26): from
   * the door's headers and fields, first found. Undefined when none is given.
   */
  readonly sessionKey?: string;
  /**
   * What `chat` leaves out of the client's request although a node serving the door's
   * protocol natively is sent it as it came: the reservation prices it (billing/unresolved-inputs.ts).
   */
  readonly leftOut?: LeftOut;
}

/** What a front door may read of a node: its id and protocols, and whether it takes requests now. */
export interface DoorNode {
  readonly node: Pick<NodeConfig, 'id' | 'nativeApis' | 'anthropicVersion'>;
  isAvailable(): boolean;
}

/**
 * The read-only view of the nodes the pipeline gives front doors, for the decisions a door
 * makes from a model's nodes (native or translated, what a node's API version refuses);
 * doors never read the route table or the node registry themselves.
 */
export interface ModelNodesView {
  /** The nodes that serve the model (by its id), in the route table's order. */
  nodesOf(modelId: string): readonly DoorNode[];
  /** A node by its id, whether or not it serves a given model. */
  node(nodeId: string): DoorNode | undefined;
}

/**
 * What a reply or stream is written in: `internal` (a `chat.completion` and its chunks, for
 * the door to map) or `native` (the node's own reply in the door's protocol: sent as it is).
 */
export type ReplyFormat = 'internal' | 'native';

/** A whole reply: the internal `chat.completion` as JSON text, and what it told. */
export interface GatewayReply {
  readonly format: ReplyFormat;
  readonly body: string;
  /** The node that answered. */
  readonly node: string;
  readonly summary: ReplySummary;
  /** The usage booked for the reply. */
  readonly usage: Usage;
  /** The body carries the node's own usage, as booked; else the front door puts `usage` in the reply itself (an estimate, marked so). */
  readonly usageSent: boolean;
}

/** How a stream ends, for the front door to frame its last events. */
export interface StreamEnd {
  readonly format: ReplyFormat;
  /** The node that streamed. */
  readonly node: string;
  /** Stream events still to send before the closing ones, in the stream's form (see StreamSink.write). */
  readonly lastEvents: StreamEvents;
  /** The usage booked for the stream. */
  readonly usage: Usage | undefined;
  /** The node's own usage already went out in the stream; else the front door sends `usage` itself. */
  readonly usageSent: boolean;
  /** Identity for events the front door adds itself (the usage chunk). */
  readonly identity: { readonly id: string; readonly created: number; readonly model: string };
}

/**
 * Where a stream goes; the front door frames it. Writes wait for a slow client
 * (backpressure); `end` and `fail` write the last events and end the response.
 */
export interface StreamSink {
  /** True once anything (headers, a keep-alive) reached the client: errors can then only be in-stream events. */
  readonly started: boolean;
  /** Sends keep-alives while the node is silent; call when the request is about to go to a node. */
  startKeepalive(): void;
  stopKeepalive(): void;
  /**
   * Stream events: `internal` ones are `chat.completion.chunk`s, as objects (form
   * `chunks`) or, for the chat door fed by an OpenAI-protocol node, as that node's text
   * (form `text`, `data: <json>\n\n` each); `native` ones are the node's own events in the
   * door's protocol, framed text. One stream's events all have one format and one form.
   * Returns a promise when the client is slow, to await before writing more.
   */
  write(events: StreamEvents, format: ReplyFormat): Promise<void> | undefined;
  /** The stream is over: its closing events (usage, end marker), and the end of the response. */
  end(end: StreamEnd): void;
  /** The stream failed after it started: the usage so far, one error event in the door's format, the end (PRODUCT.md decision 4). */
  fail(error: unknown, end: StreamEnd | undefined): void;
}

/** The front door's way out: a whole reply, or a stream. */
export interface ReplySink {
  json(reply: GatewayReply): void;
  stream(): StreamSink;
}
