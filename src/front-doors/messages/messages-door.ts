import type { IncomingMessage } from 'node:http';
import { countPromptTokens } from '../../billing/estimate-request.js';
import { NO_FEATURE_USE } from '../../billing/feature-prices.js';
import type { LeftOut } from '../../billing/unresolved-inputs.js';
import type { ModelConfig } from '../../config/gateway-config.js';
import { CORE_EFFORTS } from '../../config/reasoning-efforts.js';
import type { UpstreamFailure } from '../../errors/gateway-error.js';
import { FORWARDED_HEADERS } from '../../providers/anthropic/native-messages.js';
import type { ErrorShape } from '../../reply/error-shape.js';
import { endUserOf } from '../end-user.js';
import type { FrontDoor } from '../front-door.js';
import type { ReasoningEnvelope } from '../reasoning-envelope.js';
import { sessionKeyOf } from '../session-key.js';
import { apiKeyAuthorization } from './api-key-authorization.js';
import { messagesErrorBody } from './messages-error.js';
import { MessagesReplySink } from './messages-reply-sink.js';
import { nativeMessagesFeatures } from './native-priced-features.js';
import { nativeNodes } from './native-nodes.js';
import { SignatureAffinity, thinkingSignatures } from './signature-affinity.js';
import { thinkingSignaturesOf } from './thinking-signatures.js';
import { carriedByChat, leftOutBlocks, toChatRequest } from './to-chat-request.js';
import { parseCountTokensRequest, parseMessagesRequest } from './validate-messages-request.js';

/** Errors of the Messages routes: Anthropic's shape; an Anthropic node's own body passes through unchanged (spec 7.3). */
export const MESSAGES_ERROR_SHAPE: ErrorShape = {
  body: messagesErrorBody,
  passesThrough: (upstream: UpstreamFailure) => upstream.protocol === 'anthropic',
};

/** What the Messages door's reply needs of its request. */
export interface MessagesReplyNeeds {
  /** The client's model id. */
  readonly model: string;
  /** The prompt as the gateway counts it, for `message_start` of a translated stream (rule A1). */
  readonly inputTokensEstimate: number;
}

/** Whether the configuration lets the model take the effort (PRODUCT.md decision 19). */
function effortListed(model: ModelConfig | undefined, effort: string | null | undefined): boolean {
  const core: ReadonlySet<string> = CORE_EFFORTS;
  if (effort === undefined || effort === null || core.has(effort)) return true;
  const listed: ReadonlySet<string> | undefined = model?.reasoning?.efforts;
  return listed?.has(effort) === true;
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
 * POST /v1/messages, the Anthropic Messages front door (PRODUCT.md decisions 15, 16): the
 * body validated (400), translated into the internal request (for translated nodes, the
 * reservation and policy) and handed as it came for Anthropic nodes (native); a follow-up
 * turn carrying reasoning a node made goes to that node first (affinity). Replies go out
 * through MessagesReplySink. Its count-tokens route (inbound-protocols 1.11; rule A9)
 * counts what the chat form carries, never refusing what it cannot.
 */
export function messagesDoor(envelope: () => ReasoningEnvelope): FrontDoor<MessagesReplyNeeds> {
  const envelopes = thinkingSignaturesOf(envelope);
  const signatures = new SignatureAffinity();
  return {
    name: 'messages',
    authorization: apiKeyAuthorization,
    errors: MESSAGES_ERROR_SHAPE,
    parse({ snapshot, nodes, request, body }) {
      const messages = parseMessagesRequest(body, snapshot.config.http);
      // The model the id names, by its id or an alias (authorize resolves the same way and answers 404 when none).
      const model = snapshot.models.resolve(messages.model);
      const native = nativeNodes(nodes, model, messages.messages);
      const translated = toChatRequest(native.only ? carriedByChat(messages) : messages, envelopes());
      const headers = forwardedHeaders(request);
      // The request as an Anthropic node of the model gets it: the model's priced-feature policy applied (server
      // tools, `service_tier`, priced betas); as it came for a model no such node serves (its translated nodes get none).
      const nativeRequest =
        native.some && model !== undefined
          ? nativeMessagesFeatures(messages, headers, model)
          : { body: messages, headers, use: NO_FEATURE_USE };
      // An effort the model's configuration does not list is the Anthropic node's to judge when it gets the body as it is.
      if (native.only && !effortListed(model, translated.chat.reasoning_effort))
        delete translated.chat.reasoning_effort;
      // What the chat form left out of a native-only request the node still gets: the reservation prices it.
      const blocks = native.only ? leftOutBlocks(messages) : undefined;
      const leftOut: LeftOut = {
        unresolved: blocks?.unresolved ?? 0,
        text: blocks?.text ?? [],
        cacheBreakpoints: translated.cacheBreakpoints,
      };
      const stream = messages.stream === true;
      // The node that made the newest reasoning the history carries: a gateway envelope names it,
      // an Anthropic signature is looked up among those this instance relayed.
      const affinityNode = translated.affinityNode ?? signatures.nodeOf(thinkingSignatures(messages.messages));
      return {
        gatewayRequest: {
          frontDoor: 'messages',
          chat: translated.chat,
          native: { api: 'messages', body: nativeRequest.body, headers: nativeRequest.headers },
          features: nativeRequest.use,
          stream,
          effortParam: translated.effortParam,
          endUser: endUserOf(request, messages.metadata?.user_id),
          sessionKey: sessionKeyOf(request, messages.metadata?.user_id),
          leftOut,
          ...(affinityNode === undefined ? {} : { affinityNode }),
        },
        replyNeeds: {
          model: messages.model,
          // What message_start says before the node's count is known (rule A1): the reservation
          // already ran the tokenizer over the prompt, so a cheap count by characters is enough here.
          inputTokensEstimate: stream ? countPromptTokens(translated.chat, roughTokens) : 0,
        },
      };
    },
    sink: ({ response, context, keepaliveMs }, { model, inputTokensEstimate }) =>
      new MessagesReplySink(response, context, {
        keepaliveMs,
        envelopes: envelopes(),
        model,
        inputTokensEstimate,
        signatures,
      }),
    tokenCounting: {
      parse({ snapshot, body }) {
        const parsed = parseCountTokensRequest(body, snapshot.config.http);
        // Only counted: what the chat form cannot carry is left out, never refused.
        return toChatRequest(carriedByChat({ ...parsed, max_tokens: 1 }), envelopes()).chat;
      },
      reply: (inputTokens) => JSON.stringify({ input_tokens: inputTokens }),
    },
  };
}
