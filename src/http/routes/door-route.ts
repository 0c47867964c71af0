import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../../context/request-context.js';
import type { DoorInput, FrontDoor } from '../../front-doors/front-door.js';
import type { GatewayServices } from '../../gateway-services.js';
import type { Logger } from '../../observability/logger.js';
import { whenReady } from '../../context/when-ready.js';
import { countInputTokens } from '../../pipeline/count-input-tokens.js';
import { modelNodesView } from '../../pipeline/model-nodes-view.js';
import { runRequest } from '../../pipeline/run-request.js';
import { sendJsonText } from '../../reply/send-json.js';
import { admitAndRead } from '../admit-and-read.js';
import type { BodyBudget } from '../body-budget.js';
import { credentialsOf } from '../credentials.js';
import type { Route, RouteHandler } from '../server.js';
import type { RouteView } from '../../routing/route-table.js';
import type { ModelNodesView } from '../../pipeline/front-door.js';

/**
 * The node view of a request's routes: one per snapshot, remade only when a reload or a
 * runtime node change swapped the routes in.
 */
function nodeViews(services: GatewayServices): (routes: RouteView) => ModelNodesView {
  let viewed: RouteView | undefined;
  let view: ModelNodesView | undefined;
  return (routes) => {
    if (routes !== viewed || view === undefined) {
      view = modelNodesView(routes, services.nodes);
      viewed = routes;
    }
    return view;
  };
}

/**
 * The one route every front door runs through: admission from the headers with the door's
 * credentials (401, 429), the body read within the budgets (413, 408, 429, 503), the door's
 * parse (400), then the pipeline, whose reply goes out through the door's sink. The route
 * decides nothing itself: what depends on the model's nodes is the door's, read through the
 * pipeline's node view.
 */
export function doorRoute(services: GatewayServices, logger: Logger, bodies: BodyBudget, door: FrontDoor): Route {
  const nodesOf = nodeViews(services);
  const handleDoor: RouteHandler = (request, response, context) =>
    readAndRun(services, logger, bodies, nodesOf, door, request, response, context);
  return { method: 'POST', handler: handleDoor, frontDoor: door.name, errors: door.errors };
}

/**
 * The door's input read and parsed, then the pipeline run on it, its promise returned rather
 * than awaited: this frame ends as the run starts. A suspended async frame keeps its
 * registers, dead or not, for as long as it waits, and a held stream's request lives for
 * minutes: waiting here kept the door's input (the body text) and the parsed request (the
 * prompt again) for the stream's life (a 20 KB prompt, 40 KB per held stream;
 * bench/streams-10k.mjs --prompt-characters).
 */
async function readAndRun(
  services: GatewayServices,
  logger: Logger,
  bodies: BodyBudget,
  nodesOf: (routes: RouteView) => ModelNodesView,
  door: FrontDoor,
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
): Promise<void> {
  const input = await readDoorInput(services, bodies, nodesOf, door, request, context, false);
  const { admission } = input;
  // The chat door parses synchronously: a ready request costs no microtask (whenReady).
  return whenReady(door.parse(input), ({ gatewayRequest, replyNeeds }) => {
    const output = { response, context, keepaliveMs: context.snapshot.config.http.sseKeepaliveMs };
    return runRequest(services, logger, context, admission, gatewayRequest, door.sink(output, replyNeeds));
  });
}

/**
 * The one count-tokens route (POST /v1/messages/count_tokens, POST
 * /v1/responses/input_tokens): admission charging the key's counting budget up front, the
 * body read, the door's counting request, then the count with the one policy every door
 * shares (`countInputTokens`: the model must exist and the key may use it); never sent to
 * a node. The door only maps its body in and the count out.
 */
export function countTokensRoute(services: GatewayServices, bodies: BodyBudget, door: FrontDoor): Route {
  const counting = door.tokenCounting;
  if (counting === undefined) throw new Error(`the ${door.name} door counts no tokens`);
  const nodesOf = nodeViews(services);
  const handleCountTokens: RouteHandler = async (request, response, context) => {
    const input = await readDoorInput(services, bodies, nodesOf, door, request, context, true);
    const chat = await counting.parse(input);
    context.record.model = chat.model;
    const tokens = await countInputTokens(context.snapshot, input.admission, chat);
    sendJsonText(response, context, 200, counting.reply(tokens));
  };
  return { method: 'POST', handler: handleCountTokens, frontDoor: door.name, errors: door.errors };
}

/**
 * What a door reads of an admitted request: admission with the door's credentials (401,
 * 429; a counting route charges the key's counting budget up front), the body read within
 * the budgets, the request's snapshot and node view.
 */
async function readDoorInput(
  services: GatewayServices,
  bodies: BodyBudget,
  nodesOf: (routes: RouteView) => ModelNodesView,
  door: FrontDoor,
  request: IncomingMessage,
  context: RequestContext,
  countingTokens: boolean,
): Promise<DoorInput> {
  context.record.frontDoor = door.name;
  const credentials = credentialsOf(request, context, door.authorization(request));
  const { admission, body } = await admitAndRead(services, bodies, request, context, credentials, countingTokens);
  const { snapshot } = context;
  return { services, snapshot, nodes: nodesOf(snapshot.routes), request, context, admission, body };
}
