import type { GatewayError } from '../../errors/gateway-error.js';
import { validationFailed } from '../../protocol/openai/validate-chat-request.js';

/** 400 validation_failed naming the Responses parameter at `param`, with the reason in both languages. */
export function invalidResponsesParameter(param: string, english: string, russian: string): GatewayError {
  return validationFailed(
    param,
    `Invalid parameter '${param}': ${english}.`,
    `Некорректный параметр '${param}': ${russian}.`,
  );
}
