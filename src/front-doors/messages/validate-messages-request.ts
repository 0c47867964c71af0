import type { ValidateFunction } from 'ajv';
import { parseJsonBody } from '../../validation/parse-json-body.js';
import {
  validateCountTokensRequestShape,
  validateMessagesRequestShape,
} from '../../validation/generated/validate-messages-request.js';
import { invalidParameter, validationFailed } from '../../errors/gateway-error.js';
import { schemaValidationFailed, type ChatRequestCaps } from '../../protocol/openai/validate-chat-request.js';
import type { CountTokensRequest, MessagesRequest } from './messages-request-schema.js';
import { isRecord } from '../../validation/is-record.js';

/**
 * Parses and checks a POST /v1/messages body (inbound-protocols 1.3): JSON depth, the
 * message count cap, then the shape; throws 400 validation_failed naming the field.
 */
export function parseMessagesRequest(body: string, caps: ChatRequestCaps): MessagesRequest {
  return parseWith(body, caps, validateMessagesRequestShape);
}

/** The same for POST /v1/messages/count_tokens (inbound-protocols 1.11). */
export function parseCountTokensRequest(body: string, caps: ChatRequestCaps): CountTokensRequest {
  return parseWith(body, caps, validateCountTokensRequestShape);
}

function parseWith<T extends { messages: unknown[] }>(
  body: string,
  caps: ChatRequestCaps,
  validate: ValidateFunction<T>,
): T {
  const parsed = parseJsonBody(body, caps.maxJsonDepth);
  if (!isRecord(parsed)) throw validationFailed(null, 'body_not_object');
  const messages = parsed.messages;
  if (Array.isArray(messages) && messages.length > caps.maxMessages) {
    throw validationFailed('messages', 'too_many_messages', { count: messages.length, limit: caps.maxMessages });
  }
  if (!validate(parsed)) throw schemaValidationFailed(validate.errors);
  if (parsed.messages.length === 0) {
    throw invalidParameter('messages', 'at_least_one_message');
  }
  return parsed;
}
