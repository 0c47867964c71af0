import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { parseChatRequest } from '../../protocol/openai/validate-chat-request.js';
import { OPENAI_ERROR_SHAPE } from '../../reply/error-shape.js';
import { endUserOf } from '../end-user.js';
import { bearerAuthorization, type FrontDoor } from '../front-door.js';
import { sessionKeyOf } from '../session-key.js';
import { ChatReplySink } from './chat-reply-sink.js';

/** What the chat door's reply needs of its request. */
export interface ChatReplyNeeds {
  /** The client asked for the usage in a chunk of its own (`stream_options.include_usage`). */
  readonly separateUsageChunk: boolean;
}

/** Where the client set the reasoning effort, if it did (names the `param` of a 400 or 403): the chat door's one place. */
export function chatEffortParam(request: ChatRequest): string | undefined {
  if (request.reasoning_effort !== undefined && request.reasoning_effort !== null) return 'reasoning_effort';
  if (request.reasoning?.effort !== undefined) return 'reasoning.effort';
  return undefined;
}

/**
 * POST /v1/chat/completions (spec 4.1), the chat front door and the reference door: the
 * key in `Authorization: Bearer`, the body validated (400) as the internal request itself,
 * and the pipeline's reply sent as it is (ChatReplySink). Errors in the spec's envelope; a
 * node's own error body passes through.
 */
export function chatDoor(): FrontDoor<ChatReplyNeeds> {
  return {
    name: 'chat',
    authorization: bearerAuthorization,
    errors: OPENAI_ERROR_SHAPE,
    parse({ snapshot, request, body }) {
      const chat = parseChatRequest(body, snapshot.config.http);
      return {
        gatewayRequest: {
          frontDoor: 'chat',
          chat,
          stream: chat.stream === true,
          effortParam: chatEffortParam(chat),
          endUser: endUserOf(request, chat.user, chat.safety_identifier),
          sessionKey: sessionKeyOf(request, chat.prompt_cache_key),
        },
        replyNeeds: { separateUsageChunk: chat.stream_options?.include_usage === true },
      };
    },
    sink: ({ response, context, keepaliveMs }, { separateUsageChunk }) =>
      new ChatReplySink(response, context, keepaliveMs, separateUsageChunk),
  };
}
