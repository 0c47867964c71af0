import type { IncomingMessage, ServerResponse } from 'node:http';
import { countPromptTokens } from '../../billing/estimate-request.js';
import { markLeftOut } from '../../billing/unresolved-inputs.js';
import type { RequestContext } from '../../context/request-context.js';
import type { UpstreamFailure } from '../../errors/gateway-error.js';
import { messagesErrorBody } from '../../front-doors/anthropic/messages-error.js';
import { thinkingSignaturesOf } from '../../front-doors/anthropic/thinking-signatures.js';
import type { ReasoningEnvelope } from '../../front-doors/reasoning-envelope.js';
import { SignatureAffinity, thinkingSignatures } from '../../front-doors/anthropic/signature-affinity.js';
import { carriedByChat, leftOutBlocks, toChatRequest } from '../../front-doors/anthropic/to-chat-request.js';
import type { ModelConfig, ReasoningEffort } from '../../config/gateway-config.js';
import { CORE_EFFORTS } from '../../config/reasoning-efforts.js';
import type { GatewayServices } from '../../gateway-services.js';
import type { RouteView } from '../../routing/route-table.js';
import type { Logger } from '../../observability/logger.js';
import type { GatewayRequest } from '../../pipeline/front-door.js';
import { endUserOf } from '../../front-doors/end-user.js';
import { sessionKeyOf } from '../../front-doors/session-key.js';
import { countInputTokens } from '../../pipeline/count-input-tokens.js';
import { runRequest } from '../../pipeline/run-request.js';
import { parseCountTokensRequest, parseMessagesRequest } from '../../protocol/anthropic/validate-messages-request.js';
import { FORWARDED_HEADERS } from '../../providers/anthropic/native-messages.js';
import { isStrictVersion, refusedContent } from '../../providers/anthropic/api-version.js';
import { NO_FEATURE_USE } from '../../billing/feature-prices.js';
import { nativeMessagesFeatures } from '../../front-doors/anthropic/native-priced-features.js';
import type { MessagesRequest } from '../../protocol/anthropic/messages-request-schema.js';
import { admitAndRead } from '../admit-and-read.js';
import type { BodyBudget } from '../body-budget.js';
import { anthropicCredentialsOf } from '../credentials.js';
import type { ErrorShape } from '../error-shape.js';
import { MessagesReplySink } from '../messages-reply-sink.js';
import { sendJsonText } from '../send-json.js';

/** Errors of the Messages routes: Anthropic's shape; an Anthropic node's own body passes through unchanged (spec 7.3). */
export const MESSAGES_ERROR_SHAPE: ErrorShape = {
  body: messagesErrorBody,
  passesThrough: (upstream: UpstreamFailure) => upstream.protocol === 'anthropic',
};

/**
 * Whether every node of the model serves Messages natively: then its internal request is
 * only read for the reservation and the policy, and what only Anthropic can do is not
 * refused. A model with any translated node gets the 400s (the chosen node is not known yet).
 */
function onlyNativeNodes(services: GatewayServices, routeView: RouteView, model: ModelConfig | undefined): boolean {
  const routes = model === undefined ? [] : routeView.routes(model.id);
  return routes.length > 0 && routes.every((route) => servesMessages(services, route.nodeId));
}

function servesMessages(services: GatewayServices, nodeId: string): boolean {
  return services.nodes.get(nodeId)?.node.nativeApis.has('messages') === true;
}

/**
 * A request with content Anthropic API version 2026-10-21 refuses (an assistant document, a
 * user text block's citations) is refused here, 400 naming it, when a node of the model
 * would get it natively on that version: whichever node is chosen, so that a failover
 * between versions never sends it to one that refuses it. Translated nodes never get it.
 */
function refuseWhatStrictNodesRefuse(
  services: GatewayServices,
  routeView: RouteView,
  model: ModelConfig | undefined,
  messages: unknown,
) {
  if (model === undefined) return;
  const strict = routeView.routes(model.id).some((route) => {
    const node = services.nodes.get(route.nodeId)?.node;
    return node !== undefined && node.nativeApis.has('messages') && isStrictVersion(node);
  });
  if (!strict) return;
  const refused = refusedContent(messages);
  if (refused !== undefined) throw refused;
}

/**
 * The request as an Anthropic node of the model gets it: the model's priced-feature policy
 * applied (server tools, `service_tier`, priced betas), and what it may use of them; as it
 * came for a model no such node serves (its translated nodes get none of them).
 */
function nativeRequest(
  services: GatewayServices,
  routeView: RouteView,
  model: ModelConfig | undefined,
  messages: MessagesRequest,
  headers: Record<string, string>,
) {
  const native =
    model !== undefined && routeView.routes(model.id).some((route) => servesMessages(services, route.nodeId));
  return native ? nativeMessagesFeatures(messages, headers, model) : { body: messages, headers, use: NO_FEATURE_USE };
}

/** Whether the configuration lets the model take the effort (PRODUCT.md decision 19). */
function effortListed(model: ModelConfig | undefined, effort: string | null | undefined): boolean {
  if (effort === undefined || effort === null || CORE_EFFORTS.has(effort as ReasoningEffort)) return true;
  return model?.reasoning?.efforts?.has(effort as ReasoningEffort) === true;
}

/** About four characters a token: an estimate that costs no tokenizer run. */
function roughTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The client headers an Anthropic node gets unchanged (the first value of a repeated one, or all `anthropic-beta` values joined). */
function forwardedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(',');
  }
  return headers;
}

/**
 * POST /v1/messages, the Anthropic Messages front door (PRODUCT.md decisions 15, 16):
 * admission (401, 429), the body read and validated (400), translated into the internal
 * request (for translated nodes, the reservation and policy) and handed as it came for
 * Anthropic nodes (native); a follow-up turn carrying reasoning a node made goes to that
 * node first (affinity). Replies go out through MessagesReplySink.
 */
export function messagesRoute(
  services: GatewayServices,
  logger: Logger,
  bodies: BodyBudget,
  envelope: () => ReasoningEnvelope,
) {
  const envelopes = thinkingSignaturesOf(envelope);
  const signatures = new SignatureAffinity();
  return async function handleMessages(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
  ): Promise<void> {
    const { config } = context.snapshot;
    const { admission, body } = await admitAndRead(
      services,
      bodies,
      request,
      context,
      anthropicCredentialsOf(request, context),
    );
    const messages = parseMessagesRequest(body, config.http);
    // The model the id names, by its id or an alias (authorize resolves the same way and answers 404 when none).
    const model = context.snapshot.models.resolve(messages.model);
    refuseWhatStrictNodesRefuse(services, context.snapshot.routes, model, messages.messages);
    const nativeOnly = onlyNativeNodes(services, context.snapshot.routes, model);
    const translated = toChatRequest(nativeOnly ? carriedByChat(messages) : messages, envelopes());
    // What the chat form left out of a native-only request the node still gets: the reservation prices it.
    if (nativeOnly) markLeftOut(translated.chat, leftOutBlocks(messages));
    const native = nativeRequest(services, context.snapshot.routes, model, messages, forwardedHeaders(request));
    // An effort the model's configuration does not list is the Anthropic node's to judge when it gets the body as it is.
    if (nativeOnly && !effortListed(model, translated.chat.reasoning_effort)) delete translated.chat.reasoning_effort;
    const stream = messages.stream === true;
    // The node that made the newest reasoning the history carries: a gateway envelope names it,
    // an Anthropic signature is looked up among those this instance relayed.
    const affinityNode = translated.affinityNode ?? signatures.nodeOf(thinkingSignatures(messages.messages));
    const gatewayRequest: GatewayRequest = {
      frontDoor: 'messages',
      chat: translated.chat,
      native: { api: 'messages', body: native.body, headers: native.headers },
      features: native.use,
      stream,
      effortParam: translated.effortParam,
      endUser: endUserOf(request, messages.metadata?.user_id),
      sessionKey: sessionKeyOf(request, messages.metadata?.user_id),
      ...(affinityNode === undefined ? {} : { affinityNode }),
    };
    // What message_start says before the node's count is known (rule A1): the reservation
    // already ran the tokenizer over the prompt, so a cheap count by characters is enough here.
    const inputTokensEstimate = stream ? countPromptTokens(translated.chat, roughTokens) : 0;
    await runRequest(
      services,
      logger,
      context,
      admission,
      gatewayRequest,
      new MessagesReplySink(response, context, {
        keepaliveMs: config.http.sseKeepaliveMs,
        envelopes: envelopes(),
        model: messages.model,
        inputTokensEstimate,
        signatures,
      }),
    );
  };
}

/**
 * POST /v1/messages/count_tokens (inbound-protocols 1.11; rule A9): the prompt as the
 * gateway's tokenizer counts it (the estimator reservations use), for any model the key
 * may use, within the key's counting budget (`countInputTokens`); never sent to a node.
 */
export function countTokensRoute(services: GatewayServices, bodies: BodyBudget, envelope: () => ReasoningEnvelope) {
  const envelopes = thinkingSignaturesOf(envelope);
  return async function handleCountTokens(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
  ): Promise<void> {
    const { admission, body } = await admitAndRead(
      services,
      bodies,
      request,
      context,
      anthropicCredentialsOf(request, context),
      true,
    );
    const parsed = parseCountTokensRequest(body, context.snapshot.config.http);
    // Only counted: what the chat form cannot carry is left out, never refused.
    const { chat } = toChatRequest(carriedByChat({ ...parsed, max_tokens: 1 }), envelopes());
    context.record.model = chat.model;
    const tokens = await countInputTokens(context.snapshot, admission, chat);
    const reply = JSON.stringify({ input_tokens: tokens });
    context.record.status = 200;
    sendJsonText(response, context, 200, reply);
  };
}
