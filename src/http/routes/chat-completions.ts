import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayServices } from '../../gateway-services.js';
import type { Logger } from '../../observability/logger.js';
import type { GatewayRequest } from '../../pipeline/front-door.js';
import type { RequestContext } from '../../context/request-context.js';
import { runRequest } from '../../pipeline/run-request.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { parseChatRequest } from '../../protocol/openai/validate-chat-request.js';
import { admitAndRead } from '../admit-and-read.js';
import type { BodyBudget } from '../body-budget.js';
import { ChatReplySink } from '../chat-reply-sink.js';
import { credentialsOf } from '../credentials.js';
import { endUserOf } from '../../front-doors/end-user.js';
import { sessionKeyOf } from '../../front-doors/session-key.js';

/** Where the client set the reasoning effort, if it did (names the `param` of a 403). */
function effortParam(request: ChatRequest): string | undefined {
  if (request.reasoning_effort !== undefined && request.reasoning_effort !== null) return 'reasoning_effort';
  if (request.reasoning?.effort !== undefined) return 'reasoning.effort';
  return undefined;
}

/**
 * POST /v1/chat/completions (spec 4.1), the chat front door: admission from the headers
 * (401, 429), the body read within the key's and the gateway's body budgets (429, 503) and
 * validated (400), then the pipeline; its reply goes out as it is (ChatReplySink).
 */
export function chatCompletionsRoute(services: GatewayServices, logger: Logger, bodies: BodyBudget) {
  return async function handleChatCompletions(
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
  ): Promise<void> {
    const { config } = context.snapshot;
    const { admission, body } = await admitAndRead(services, bodies, request, context, credentialsOf(request, context));
    const chat = parseChatRequest(body, config.http);
    const gatewayRequest: GatewayRequest = {
      frontDoor: 'chat',
      chat,
      stream: chat.stream === true,
      effortParam: effortParam(chat),
      endUser: endUserOf(request, chat.user, chat.safety_identifier),
      sessionKey: sessionKeyOf(request, chat.prompt_cache_key),
    };
    await runRequest(
      services,
      logger,
      context,
      admission,
      gatewayRequest,
      new ChatReplySink(response, context, config.http.sseKeepaliveMs, chat.stream_options?.include_usage === true),
    );
  };
}
