import type { ErrorObject } from 'ajv';
import { gatewayError, type GatewayError } from '../../errors/gateway-error.js';
import { truncateForDisplay } from '../../errors/truncate-for-display.js';
import { parseJsonBody } from '../../validation/parse-json-body.js';
import { scanJsonText } from '../../validation/scan-json-text.js';
import { describeSchemaError, pickSchemaError } from '../../validation/describe-schema-error.js';
import { validateChatRequestShape as validateShape } from '../../validation/generated/validate-chat-request-shape.js';
import type { ChatRequest } from './chat-request-schema.js';

/** 400 validation_failed naming the parameter, in both languages. */
export function validationFailed(param: string | null, english: string, russian: string): GatewayError {
  return gatewayError('validation_failed', { param, params: { detail_en: english, detail_ru: russian } });
}

/** The path is cut for the message (a key of a megabyte stays a short sentence); `param` gets the same cut. */
function invalidParameter(param: string, expected: string, expectedRu: string): GatewayError {
  const shown = truncateForDisplay(param);
  return validationFailed(
    param,
    `Invalid parameter '${shown}': it ${expected}.`,
    `Некорректный параметр '${shown}': ${expectedRu}.`,
  );
}

/** 400 validation_failed for a body a compiled schema rejected, naming the field. */
export function schemaValidationFailed(errors: readonly ErrorObject[] | null | undefined): GatewayError {
  const error = pickSchemaError(errors);
  const problem = error ? describeSchemaError(error) : { path: '', expected: 'is invalid', expectedRu: 'некорректен' };
  return invalidParameter(problem.path, problem.expected, problem.expectedRu);
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
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw validationFailed(null, 'The request body must be a JSON object.', 'Тело запроса должно быть JSON-объектом.');
  }
  checkCaps(parsed as Record<string, unknown>, caps);
  if (!validateShape(parsed)) throw schemaValidationFailed(validateShape.errors);
  checkMessages(parsed, caps.maxJsonDepth);
  checkReasoningConflict(parsed);
  return parsed;
}

function checkCaps(body: Record<string, unknown>, caps: ChatRequestCaps): void {
  const { messages, n } = body;
  if (Array.isArray(messages) && messages.length > caps.maxMessages) {
    throw validationFailed(
      'messages',
      `Too many messages: ${messages.length}; at most ${caps.maxMessages} are accepted.`,
      `Слишком много сообщений: ${messages.length}; допускается не более ${caps.maxMessages}.`,
    );
  }
  if (typeof n === 'number' && n > caps.maxChoices) {
    throw validationFailed(
      'n',
      `Invalid parameter 'n': at most ${caps.maxChoices} choices are accepted.`,
      `Некорректный параметр 'n': допускается не более ${caps.maxChoices} вариантов.`,
    );
  }
}

function checkMessages(request: ChatRequest, maxJsonDepth: number): void {
  request.messages.forEach((message, index) => {
    const hasContent = message.content !== undefined && message.content !== null;
    if (message.role === 'assistant') {
      if (!hasContent && (message.tool_calls === undefined || message.tool_calls.length === 0)) {
        throw invalidParameter(
          `messages[${index}].content`,
          'is required for an assistant message without tool_calls',
          'обязателен для сообщения assistant без tool_calls',
        );
      }
    } else if (!hasContent) {
      throw invalidParameter(`messages[${index}].content`, 'is required', 'обязателен');
    }
    message.tool_calls?.forEach((call, callIndex) => {
      // Arguments are JSON inside a string: translators parse them, so they get the body's depth bound.
      const args = (call as { function?: { arguments?: unknown } }).function?.arguments;
      if (typeof args === 'string' && scanJsonText(args, maxJsonDepth).tooDeep) {
        throw invalidParameter(
          `messages[${index}].tool_calls[${callIndex}].function.arguments`,
          `nests arrays and objects more than ${maxJsonDepth} levels deep`,
          `массивы и объекты вложены глубже ${maxJsonDepth} уровней`,
        );
      }
    });
    if (message.role === 'tool' && (message.tool_call_id === undefined || message.tool_call_id === '')) {
      throw invalidParameter(
        `messages[${index}].tool_call_id`,
        'is required for a tool message',
        'обязателен для сообщения tool',
      );
    }
  });
}

function checkReasoningConflict(request: ChatRequest): void {
  const topLevel = request.reasoning_effort ?? undefined;
  const nested = request.reasoning?.effort ?? undefined;
  if (topLevel !== undefined && nested !== undefined && topLevel !== nested) {
    throw validationFailed(
      'reasoning_effort',
      `Conflicting parameters: reasoning_effort is "${topLevel}" but reasoning.effort is "${nested}"; send one of them, or the same value in both.`,
      `Противоречивые параметры: reasoning_effort = "${topLevel}", а reasoning.effort = "${nested}"; передайте один из них или одинаковые значения.`,
    );
  }
}
