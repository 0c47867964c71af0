import { SimulatorError } from './simulator-error.js';

/** The wire protocols a simulated node can speak. */
export type SimulatedProtocol = 'openai' | 'anthropic' | 'gemini';

/** Anthropic `error.type` by status (provider-protocols 4.6). */
const ANTHROPIC_ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Google RPC status by HTTP status (provider-protocols 5.6). */
const GOOGLE_STATUSES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function anthropicErrorType(status: number): string {
  return ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export function googleStatus(status: number): string {
  return GOOGLE_STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/**
 * An error body in the protocol's own shape: OpenAI `{error: {message, type, param, code}}`,
 * Anthropic `{type: "error", error: {type, message}, request_id}`, Gemini
 * `{error: {code, message, status}}`.
 */
export function errorBody(protocol: SimulatedProtocol, error: SimulatorError, requestId: string): unknown {
  if (protocol === 'anthropic') {
    return {
      type: 'error',
      error: { type: anthropicErrorType(error.status), message: error.message },
      request_id: requestId,
    };
  }
  if (protocol === 'gemini')
    return { error: { code: error.status, message: error.message, status: googleStatus(error.status) } };
  return error.toBody();
}

/** A 400 in the simulator's terms, for request checks of the non-OpenAI protocols. */
export function invalidRequest(message: string, param: string | null = null): SimulatorError {
  return new SimulatorError(400, message, { param, code: 'invalid_value' });
}
