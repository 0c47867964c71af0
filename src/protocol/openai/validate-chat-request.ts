import type { ErrorObject } from 'ajv';
import { invalidParameter, invalidValue, validationFailed, type GatewayError } from '../../errors/gateway-error.js';
import { parseJsonBody } from '../../validation/parse-json-body.js';
import { scanJsonText } from '../../validation/scan-json-text.js';
import { describeSchemaError, pickSchemaError } from '../../validation/describe-schema-error.js';
import { validateChatRequestShape as validateShape } from '../../validation/generated/validate-chat-request-shape.js';
import type { ChatRequest } from './chat-request-schema.js';
import { isRecord } from '../../validation/is-record.js';

/** 400 validation_failed for a body a compiled schema rejected, naming the field. */
export function schemaValidationFailed(errors: readonly ErrorObject[] | null | undefined): GatewayError {
  const error = pickSchemaError(errors);
  if (error === undefined) return invalidValue('', 'breaks_rule');
  const { path, problem } = describeSchemaError(error);
  return validationFailed(path, 'invalid_parameter_value', { what: problem });
}

/** Caps on one request's size (configuration `http.max_messages`, `http.max_choices`, `http.max_json_depth`). */
export interface ChatRequestCaps {
  readonly maxMessages: number;
  readonly maxChoices: number;
  readonly maxJsonDepth: number;
}

const NO_CAPS: ChatRequestCaps = {
  maxMessages: Number.POSITIVE_INFINITY,
  maxChoices: 128,
  maxJsonDepth: Number.POSITIVE_INFINITY,
};

/**
 * Parses and checks a chat-completions body (spec 7.2 row 400, PRODUCT.md decisions 6, 8).
 * Throws GatewayError validation_failed with `param` set to the offending field. The
 * caps are checked before the schema, so an oversized array is refused without walking it.
 */
export function parseChatRequest(body: string, caps: ChatRequestCaps = NO_CAPS): ChatRequest {
  const parsed = parseJsonBody(body, caps.maxJsonDepth);
  if (!isRecord(parsed)) throw validationFailed(null, 'body_not_object');
  checkCaps(parsed, caps);
  if (!validateShape(parsed)) throw schemaValidationFailed(validateShape.errors);
  checkMessages(parsed, caps.maxJsonDepth);
  checkReasoningConflict(parsed);
  return parsed;
}

function checkCaps(body: Record<string, unknown>, caps: ChatRequestCaps): void {
  const { messages, n } = body;
  if (Array.isArray(messages) && messages.length > caps.maxMessages) {
    throw validationFailed('messages', 'too_many_messages', { count: messages.length, limit: caps.maxMessages });
  }
  if (typeof n === 'number' && n > caps.maxChoices) {
    throw invalidParameter('n', 'at_most_choices', { limit: caps.maxChoices });
  }
}

function checkMessages(request: ChatRequest, maxJsonDepth: number): void {
  request.messages.forEach((message, index) => {
    const hasContent = message.content !== undefined && message.content !== null;
    if (message.role === 'assistant') {
      if (!hasContent && (message.tool_calls === undefined || message.tool_calls.length === 0)) {
        throw invalidValue(`messages[${index}].content`, 'required_without_tool_calls');
      }
    } else if (!hasContent) {
      throw invalidValue(`messages[${index}].content`, 'required');
    }
    message.tool_calls?.forEach((call, callIndex) => {
      // Arguments are JSON inside a string: translators parse them, so they get the body's depth bound.
      const fields: Record<string, unknown> = call;
      const args = isRecord(fields.function) ? fields.function.arguments : undefined;
      if (typeof args === 'string' && scanJsonText(args, maxJsonDepth).tooDeep) {
        throw invalidValue(`messages[${index}].tool_calls[${callIndex}].function.arguments`, 'nested_too_deep', {
          limit: maxJsonDepth,
        });
      }
    });
    if (message.role === 'tool' && (message.tool_call_id === undefined || message.tool_call_id === '')) {
      throw invalidValue(`messages[${index}].tool_call_id`, 'required_for_tool_message');
    }
  });
}

function checkReasoningConflict(request: ChatRequest): void {
  const topLevel = request.reasoning_effort ?? undefined;
  const nested = request.reasoning?.effort ?? undefined;
  if (topLevel !== undefined && nested !== undefined && topLevel !== nested) {
    throw validationFailed('reasoning_effort', 'reasoning_effort_conflict', { top_level: topLevel, nested });
  }
}
