import { NO_FEATURE_USE } from '../../billing/feature-prices.js';
import { gatewayError } from '../../errors/gateway-error.js';
import type { GatewayRequest, ModelNodesView } from '../../pipeline/front-door.js';
import { conversationBefore, type Conversation } from '../../responses-state/conversation.js';
import { responseOwner } from '../../responses-state/response-owner.js';
import { endUserOf } from '../end-user.js';
import type { DoorInput } from '../front-door.js';
import type { ReasoningEnvelope } from '../reasoning-envelope.js';
import { sessionKeyOf } from '../session-key.js';
import type { CreateResponseRequest } from './create-response-schema.js';
import { nativeResponsesFeatures } from './native-priced-features.js';
import { parseCreateResponse } from './parse-create-response.js';
import { referencedItems } from './stored-items.js';
import { toChatRequest } from './to-chat-request.js';

/** `parsed` without its `request_id` (see nativeBody). */
function withoutRequestId(parsed: CreateResponseRequest): Record<string, unknown> {
  const { request_id: _nodeId, ...body }: Record<string, unknown> = parsed;
  return body;
}

/**
 * The body a node serving the Responses API natively is sent: the client's, without the
 * fields that choose the node's response id, unless it continues a response such a node did
 * not make (a translated one, stored here only): then the stored conversation goes in
 * `input` instead of the id the node would not know.
 */
function nativeBody(
  nodes: ModelNodesView,
  parsed: CreateResponseRequest,
  history: { readonly items: readonly Record<string, unknown>[]; readonly node: string | null },
): Record<string, unknown> {
  // vLLM's `request_id` sets the id of the response the node makes: never sent on, so that a
  // client cannot choose an id another account holds (copied only when it is there).
  const body: Record<string, unknown> = 'request_id' in parsed ? withoutRequestId(parsed) : parsed;
  if (parsed.previous_response_id === undefined || parsed.previous_response_id === null) return body;
  const maker = history.node === null ? undefined : nodes.node(history.node)?.node;
  if (maker?.nativeApis.has('responses') === true) return body;
  const input = typeof parsed.input === 'string' ? [{ role: 'user', content: parsed.input }] : parsed.input;
  return { ...body, previous_response_id: undefined, input: [...history.items, ...input] };
}

/**
 * A Responses request read, checked and translated, with what its reply needs. `run`: the
 * request is to be run (and maybe stored), not only counted: a request asking to store for
 * an account whose stored responses are full is then refused (429) before anything is read
 * from the store. What depends on the model's nodes (a native node, a node that may read
 * reasoning it made) is read through the pipeline's node view.
 */
export async function readResponsesRequest(input: DoorInput, envelope: ReasoningEnvelope, run: boolean) {
  const { services, snapshot, nodes, request, admission, body } = input;
  const { config } = snapshot;
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
  const model = snapshot.models.resolve(parsed.model);
  const modelNodes = model === undefined ? [] : nodes.nodesOf(model.id);
  const readsReasoning = (node: string): boolean =>
    modelNodes.some((state) => state.node.id === node && state.isAvailable());
  const servedNatively = modelNodes.some((state) => state.node.nativeApis.has('responses'));
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
      ? nativeResponsesFeatures(nativeBody(nodes, parsed, history), model)
      : { body: nativeBody(nodes, parsed, history), use: NO_FEATURE_USE };
  const gatewayRequest: GatewayRequest = {
    frontDoor: 'responses',
    chat: translated.chat,
    native: { api: 'responses', body: native.body, headers: {} },
    features: native.use,
    affinityNode: translated.reasoningNode ?? history.node ?? undefined,
    stream: parsed.stream === true,
    // Where the client set the effort: the Responses door's one place.
    effortParam:
      parsed.reasoning?.effort === undefined || parsed.reasoning.effort === null ? undefined : 'reasoning.effort',
    endUser: endUserOf(request, parsed.user, parsed.safety_identifier),
    sessionKey: sessionKeyOf(request, parsed.prompt_cache_key),
    leftOut: translated.leftOut,
  };
  return { parsed, owner, previousId, history, references, translated, gatewayRequest };
}
