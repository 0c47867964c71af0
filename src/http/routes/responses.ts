import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../../context/request-context.js';
import type { ReasoningEnvelope } from '../../front-doors/reasoning-envelope.js';
import { newResponseId } from '../../front-doors/responses/response-ids.js';
import { ResponseObject, reasoningSummary } from '../../front-doors/responses/response-object.js';
import { referencedItems, storedInputItems } from '../../front-doors/responses/stored-items.js';
import { toChatRequest } from '../../front-doors/responses/to-chat-request.js';
import { nativeResponsesFeatures } from '../../front-doors/responses/native-priced-features.js';
import { NO_FEATURE_USE } from '../../billing/feature-prices.js';
import type { GatewayServices } from '../../gateway-services.js';
import type { Logger } from '../../observability/logger.js';
import type { GatewayRequest } from '../../pipeline/front-door.js';
import { endUserOf } from '../../front-doors/end-user.js';
import { sessionKeyOf } from '../../front-doors/session-key.js';
import { countInputTokens } from '../../pipeline/count-input-tokens.js';
import { runRequest } from '../../pipeline/run-request.js';
import { parseCreateResponse } from '../../protocol/responses/parse-create-response.js';
import type { CreateResponseRequest } from '../../protocol/responses/create-response-schema.js';
import { conversationBefore, type Conversation } from '../../responses-state/conversation.js';
import { gatewayError } from '../../errors/gateway-error.js';
import { responseOwner } from '../../responses-state/response-owner.js';
import { admitAndRead } from '../admit-and-read.js';
import type { BodyBudget } from '../body-budget.js';
import { sendJson } from '../send-json.js';
import { credentialsOf } from '../credentials.js';
import { ResponsesReplySink, type OnResponseFinished } from '../responses-reply-sink.js';

/** `parsed` without its `request_id` (see nativeBody). */
function withoutRequestId(parsed: CreateResponseRequest): Record<string, unknown> {
  const { request_id: _nodeId, ...body } = parsed as Record<string, unknown>;
  return body;
}

/**
 * The body a node serving the Responses API natively is sent: the client's, without the
 * fields that choose the node's response id, unless it continues a response such a node did
 * not make (a translated one, stored here only): then the stored conversation goes in
 * `input` instead of the id the node would not know.
 */
function nativeBody(
  services: GatewayServices,
  parsed: CreateResponseRequest,
  history: { readonly items: readonly Record<string, unknown>[]; readonly node: string | null },
): Record<string, unknown> {
  // vLLM's `request_id` sets the id of the response the node makes: never sent on, so that a
  // client cannot choose an id another account holds (copied only when it is there).
  const body: Record<string, unknown> = 'request_id' in parsed ? withoutRequestId(parsed) : parsed;
  if (parsed.previous_response_id === undefined || parsed.previous_response_id === null) return body;
  const maker = history.node === null ? undefined : services.nodes.get(history.node)?.node;
  if (maker?.nativeApis.has('responses') === true) return body;
  const input = typeof parsed.input === 'string' ? [{ role: 'user', content: parsed.input }] : parsed.input;
  return { ...body, previous_response_id: undefined, input: [...history.items, ...input] };
}

/**
 * A Responses request read, checked and translated, with what its reply needs. `run`: the
 * request is to be run (and maybe stored), not only counted: a request asking to store for
 * an account whose stored responses are full is then refused (429) before anything is read
 * from the store.
 */
async function readResponsesRequest(
  services: GatewayServices,
  bodies: BodyBudget,
  envelope: ReasoningEnvelope,
  request: IncomingMessage,
  context: RequestContext,
  run: boolean,
) {
  const { config } = context.snapshot;
  const { admission, body } = await admitAndRead(
    services,
    bodies,
    request,
    context,
    credentialsOf(request, context),
    !run,
  );
  const parsed = parseCreateResponse(body, config.http);
  const owner = responseOwner(admission);
  if (run && parsed.store !== false && services.responses.isFull(owner)) {
    const { maxStoredResponsesPerAccount, maxStoredBytesPerAccount } = config.responses;
    throw gatewayError('stored_responses_full', {
      param: 'store',
      params: { max_count: maxStoredResponsesPerAccount, max_bytes: maxStoredBytesPerAccount },
    });
  }
  const previousId = parsed.previous_response_id ?? undefined;
  const history: Conversation =
    previousId === undefined
      ? { items: [], node: null, responses: 0 }
      : await conversationBefore(services.responses, owner, previousId, {
          maxResponses: config.responses.maxConversationResponses,
          maxBytes: config.responses.maxConversationBytes,
        });
  const references = await referencedItems(services.responses, owner, parsed.input, history.items);
  const model = context.snapshot.models.resolve(parsed.model);
  const routes = model === undefined ? [] : context.snapshot.routes.routes(model.id);
  const readsReasoning = (node: string): boolean =>
    routes.some((route) => route.nodeId === node) && services.nodes.get(node)?.isAvailable() === true;
  const servedNatively = routes.some(
    (route) => services.nodes.get(route.nodeId)?.node.nativeApis.has('responses') === true,
  );
  const translated = toChatRequest(parsed, {
    history: history.items,
    references,
    envelope,
    readsReasoning,
    servedNatively,
  });
  // A model a native node serves gets its priced-feature policy applied (hosted tools, `service_tier`).
  const native =
    servedNatively && model !== undefined
      ? nativeResponsesFeatures(nativeBody(services, parsed, history), model)
      : { body: nativeBody(services, parsed, history), use: NO_FEATURE_USE };
  const gatewayRequest: GatewayRequest = {
    frontDoor: 'responses',
    chat: translated.chat,
    native: { api: 'responses', body: native.body, headers: {} },
    features: native.use,
    affinityNode: translated.reasoningNode ?? history.node ?? undefined,
    stream: parsed.stream === true,
    effortParam:
      parsed.reasoning?.effort === undefined || parsed.reasoning.effort === null ? undefined : 'reasoning.effort',
    endUser: endUserOf(request, parsed.user, parsed.safety_identifier),
    sessionKey: sessionKeyOf(request, parsed.prompt_cache_key),
  };
  return { admission, parsed, owner, previousId, history, references, translated, gatewayRequest };
}

/**
 * POST /v1/responses (PRODUCT.md decisions 15, 17; inbound-protocols 2): admission from the
 * headers (401, 429), the body read within the budgets and validated (400), the stored
 * conversation of `previous_response_id` and the stored items of `item_reference`s fetched
 * for the key's account (404), the request translated to the internal chat form, then the
 * pipeline; the reply goes out as a Response or its event stream (ResponsesReplySink), and
 * is stored (unless `store: false`) before its last bytes leave.
 */
export function responsesRoute(
  services: GatewayServices,
  logger: Logger,
  bodies: BodyBudget,
  gatewayEnvelope: () => ReasoningEnvelope,
) {
  return async function handleResponses(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
  ): Promise<void> {
    const envelope = gatewayEnvelope();
    const { admission, parsed, owner, previousId, history, references, translated, gatewayRequest } =
      await readResponsesRequest(services, bodies, envelope, request, context, true);
    const id = newResponseId(context.requestId);
    const createdAt = Math.floor(Date.now() / 1000);
    const object = new ResponseObject(id, createdAt, parsed.model, parsed);
    const onFinished: OnResponseFinished | undefined =
      parsed.store === false
        ? undefined
        : ({ response: finished, node }) =>
            services.responses.save({
              // A native node's reply keeps its own id (the one the client got).
              id: typeof finished.id === 'string' ? finished.id : id,
              accountId: owner,
              createdAt,
              model: parsed.model,
              node: node ?? null,
              response: finished,
              inputItems: storedInputItems(parsed.input, references, id),
              previousResponseId: previousId ?? null,
              depth: history.responses + 1,
            });
    const shaping = {
      responseId: id,
      toolNames: translated.toolNames,
      summaryMode: reasoningSummary(parsed) !== undefined,
      includeEncrypted: parsed.include?.includes('reasoning.encrypted_content') === true,
      envelope,
    };
    const sink = new ResponsesReplySink(
      response,
      context,
      context.snapshot.config.http.sseKeepaliveMs,
      object,
      shaping,
      onFinished,
    );
    await runRequest(services, logger, context, admission, gatewayRequest, sink);
  };
}

/**
 * POST /v1/responses/input_tokens (inbound-protocols 2.11): the same request counted, not
 * run — its whole prompt (stored conversation included) as the gateway's tokenizer counts
 * it for reservations, with the policy of every counting route (`countInputTokens`).
 */
export function responsesInputTokensRoute(
  services: GatewayServices,
  bodies: BodyBudget,
  envelope: () => ReasoningEnvelope,
) {
  return async function handleInputTokens(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
  ): Promise<void> {
    const { admission, gatewayRequest } = await readResponsesRequest(
      services,
      bodies,
      envelope(),
      request,
      context,
      false,
    );
    const inputTokens = await countInputTokens(context.snapshot, admission, gatewayRequest.chat);
    sendJson(response, context, 200, { object: 'response.input_tokens', input_tokens: inputTokens });
  };
}
