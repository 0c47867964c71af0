import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../context/request-context.js';
import type { ConfigurationSnapshot } from '../configuration-snapshot.js';
import type { GatewayServices } from '../gateway-services.js';
import type { Admission } from '../pipeline/admit.js';
import type { FrontDoorName, GatewayRequest, ModelNodesView, ReplySink } from '../pipeline/front-door.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import type { ErrorShape } from '../reply/error-shape.js';

/** What a door may read of the gateway's services: the stored responses; never the route table or the node registry (see DoorInput.nodes). */
export type DoorServices = Pick<GatewayServices, 'responses'>;

/** What a door may read of the request's configuration snapshot: the configuration and the model catalog. */
export type DoorSnapshot = Pick<ConfigurationSnapshot, 'config' | 'models'>;

/** What a door reads to parse a request: an admitted request's headers and body, and the gateway's state. */
export interface DoorInput {
  readonly services: DoorServices;
  /** The configuration the request runs under, from its start to its end. */
  readonly snapshot: DoorSnapshot;
  /** The model's nodes, read-only: what a door decides from them. */
  readonly nodes: ModelNodesView;
  /** The client's request: its headers (the end user, the session key, headers to forward). */
  readonly request: IncomingMessage;
  readonly context: RequestContext;
  readonly admission: Admission;
  /** The body, read within the budgets. */
  readonly body: string;
}

/** A request a door parsed: the pipeline's form of it, and what the door's reply needs of it. */
export interface DoorRequest<ReplyNeeds> {
  readonly gatewayRequest: GatewayRequest;
  readonly replyNeeds: ReplyNeeds;
}

/** Where a door's reply goes. */
export interface DoorOutput {
  readonly response: ServerResponse;
  readonly context: RequestContext;
  /** How often a silent stream gets a keep-alive. */
  readonly keepaliveMs: number;
}

/**
 * A door's token counting (count-tokens is one stage every door shares, with one policy:
 * pipeline/count-input-tokens.ts): how its counting body maps to a chat request, and how
 * the count goes out.
 */
export interface DoorTokenCounting {
  /** The counting request as a chat request: only counted, never sent, so what chat cannot carry is left out. */
  parse(input: DoorInput): ChatRequest | Promise<ChatRequest>;
  /** The count as the door's JSON reply. */
  reply(inputTokens: number): string;
}

/**
 * A front door (a client-facing protocol), whole: the generic door route
 * (http/routes/door-route.ts) runs any door: admission with the door's credentials, the
 * body read, `parse`, the pipeline, the reply through the door's sink; errors in the door's
 * shape. A new door is one folder under front-doors/ and one line in the route table
 * (http/gateway-routes.ts).
 */
export interface FrontDoor<ReplyNeeds = unknown> {
  /** The label of the door in logs, metrics and the ledger. */
  readonly name: FrontDoorName;
  /** The key the client presents, as an `Authorization` header value (undefined: none). */
  authorization(request: IncomingMessage): string | undefined;
  /** How the door's errors look. */
  readonly errors: ErrorShape;
  /** The body as the pipeline's request (400 when invalid), with the end user, the session key and where the effort was set. */
  parse(input: DoorInput): DoorRequest<ReplyNeeds> | Promise<DoorRequest<ReplyNeeds>>;
  /** The door's way out for one request: its JSON reply and its stream mapper. */
  sink(output: DoorOutput, replyNeeds: ReplyNeeds): ReplySink;
  /** The door's count-tokens route, when it has one. */
  readonly tokenCounting?: DoorTokenCounting;
}

/** The `Authorization` header as it came (a Bearer token). */
export function bearerAuthorization(request: IncomingMessage): string | undefined {
  return request.headers.authorization;
}
