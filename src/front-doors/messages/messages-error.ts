import type { RequestContext } from '../../context/request-context.js';
import type { GatewayError } from '../../errors/gateway-error.js';
import { isRecord } from '../../validation/is-record.js';

/** Anthropic's error types by status (PRODUCT.md decision 16; inbound-protocols 1.9). */
const TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Anthropic's `error.type` for a status: the table, else a client fault or a server one. */
export function messagesErrorType(status: number): string {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** Longest node message repeated to the client. */
const MAX_NODE_MESSAGE_CHARS = 2_000;
/** How nodes of other protocols word a prompt over the context window. */
const CONTEXT_OVERFLOW =
  /context[_ ]length|context window|maximum context|too many (input )?tokens|prompt is too long/i;

/** The message of a node's own error body in another protocol (OpenAI `error.message`, Gemini `error.message`, a bare `message`). */
function nodeMessage(body: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body.subarray(0, 65_536).toString('utf8'));
    if (!isRecord(parsed)) return undefined;
    const error = parsed.error;
    const message = isRecord(error) ? error.message : (error ?? parsed.message);
    const code = isRecord(error) ? error.code : undefined;
    if (typeof message !== 'string' || message === '') return undefined;
    const text = message.slice(0, MAX_NODE_MESSAGE_CHARS);
    // Claude Code compacts and retries only on Anthropic's wording (rule A18).
    return code === 'context_length_exceeded' || CONTEXT_OVERFLOW.test(text) ? `prompt is too long: ${text}` : text;
  } catch {
    return undefined;
  }
}

/**
 * The Anthropic front door's error body (PRODUCT.md decision 16): `{type: "error", error:
 * {type, message}, request_id}`, status as the spec says, the message in the caller's
 * language. A node's own client error from a node of another protocol keeps its status and
 * message in this shape (inbound-protocols 3.11).
 */
export function messagesErrorBody(error: GatewayError, context: RequestContext): string {
  const upstream = error.upstream;
  // A node's own client error passed through: its status, and its message when it has one.
  const passed =
    upstream?.passThrough === true && upstream.status !== undefined && upstream.body !== undefined
      ? { status: upstream.status, body: upstream.body }
      : undefined;
  const status = passed?.status ?? error.status;
  const message =
    (passed === undefined ? undefined : nodeMessage(passed.body)) ?? error.localizedMessage(context.language);
  return JSON.stringify({
    type: 'error',
    error: { type: messagesErrorType(status), message },
    request_id: context.requestId,
  });
}
