import { parseJsonBody } from '../../validation/parse-json-body.js';
import { validateCreateResponseShape as validateShape } from '../../validation/generated/validate-create-response-shape.js';
import { validationFailed } from '../../errors/gateway-error.js';
import { schemaValidationFailed, type ChatRequestCaps } from '../../protocol/openai/validate-chat-request.js';
import type { CreateResponseRequest } from './create-response-schema.js';
import { isRecord } from '../../validation/is-record.js';

/** Fields of the Responses API that Switchyard does not serve: a 400 naming them (inbound-protocols 2.3). */
const UNSUPPORTED = ['conversation', 'prompt'] as const;

/**
 * Parses and checks a POST /v1/responses body (inbound-protocols 2.3). Throws GatewayError
 * validation_failed with `param` set to the offending field; the item count is checked
 * against `http.max_messages` before the schema walks the items.
 */
export function parseCreateResponse(body: string, caps: ChatRequestCaps): CreateResponseRequest {
  const parsed = parseJsonBody(body, caps.maxJsonDepth);
  if (!isRecord(parsed)) throw validationFailed(null, 'body_not_object');
  if (Array.isArray(parsed.input) && parsed.input.length > caps.maxMessages) {
    throw validationFailed('input', 'too_many_input_items', { count: parsed.input.length, limit: caps.maxMessages });
  }
  const record = parsed;
  if (!validateShape(parsed)) throw schemaValidationFailed(validateShape.errors);
  for (const field of UNSUPPORTED) {
    if (record[field] !== undefined && record[field] !== null) throw unsupported(field);
  }
  if (record.background === true) throw unsupported('background');
  return parsed;
}

function unsupported(field: string) {
  return validationFailed(field, 'unsupported_parameter');
}
