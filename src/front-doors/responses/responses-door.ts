import { errorEnvelopeJson } from '../../reply/error-envelope.js';
import type { ErrorShape } from '../../reply/error-shape.js';
import { bearerAuthorization, type FrontDoor } from '../front-door.js';
import type { ReasoningEnvelope } from '../reasoning-envelope.js';
import type { OutputShaping } from './output-items.js';
import { readResponsesRequest } from './read-responses-request.js';
import { newResponseId } from './response-ids.js';
import { ResponseObject, reasoningSummary } from './response-object.js';
import { ResponsesReplySink, type OnResponseFinished } from './responses-reply-sink.js';
import { storedInputItems } from './stored-items.js';

/**
 * The Responses door's errors: the spec's envelope; a node's own error body passes through
 * only from an OpenAI-protocol node (inbound-protocols 3.11), others are rendered in the
 * envelope with the node's status.
 */
export const RESPONSES_ERROR_SHAPE: ErrorShape = {
  body: errorEnvelopeJson,
  passesThrough: (upstream) => upstream.protocol === undefined || upstream.protocol === 'openai',
};

/** What the Responses door's reply needs of its request. */
export interface ResponsesReplyNeeds {
  readonly object: ResponseObject;
  readonly shaping: OutputShaping;
  /** Keeps the finished response (the store); undefined with `store: false`. */
  readonly onFinished: OnResponseFinished | undefined;
}

/**
 * POST /v1/responses (PRODUCT.md decisions 15, 17; inbound-protocols 2): the key in
 * `Authorization: Bearer`, the body validated (400), the stored conversation of
 * `previous_response_id` and the stored items of `item_reference`s fetched for the key's
 * account (404), the request translated to the internal chat form; the reply goes out as a
 * Response or its event stream (ResponsesReplySink), and is stored (unless `store: false`)
 * before its last bytes leave. Its count-tokens route, POST /v1/responses/input_tokens
 * (inbound-protocols 2.11), counts the same request's whole prompt, stored conversation included.
 */
export function responsesDoor(gatewayEnvelope: () => ReasoningEnvelope): FrontDoor<ResponsesReplyNeeds> {
  return {
    name: 'responses',
    authorization: bearerAuthorization,
    errors: RESPONSES_ERROR_SHAPE,
    async parse(input) {
      const { services, context } = input;
      const envelope = gatewayEnvelope();
      const { parsed, owner, previousId, history, references, translated, gatewayRequest } = await readResponsesRequest(
        input,
        envelope,
        true,
      );
      const id = newResponseId(context.requestId);
      const createdAt = Math.floor(Date.now() / 1000);
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
      const shaping: OutputShaping = {
        responseId: id,
        toolNames: translated.toolNames,
        summaryMode: reasoningSummary(parsed) !== undefined,
        includeEncrypted: parsed.include?.includes('reasoning.encrypted_content') === true,
        envelope,
      };
      const object = new ResponseObject(id, createdAt, parsed.model, parsed);
      return { gatewayRequest, replyNeeds: { object, shaping, onFinished } };
    },
    sink: ({ response, context, keepaliveMs }, { object, shaping, onFinished }) =>
      new ResponsesReplySink(response, context, keepaliveMs, object, shaping, onFinished),
    tokenCounting: {
      parse: async (input) => (await readResponsesRequest(input, gatewayEnvelope(), false)).gatewayRequest.chat,
      reply: (inputTokens) => JSON.stringify({ object: 'response.input_tokens', input_tokens: inputTokens }),
    },
  };
}
