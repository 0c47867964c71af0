/** The messages of a chat request whose content does not matter to the test. */
export const MESSAGES = [{ role: 'user', content: 'Name three kinds of railway switches.' }];

/** A chat request body: `model`, the shared messages, and `extra` fields (which may replace them). */
export function chatBody(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, messages: MESSAGES, ...extra };
}

/** Headers and a time bound for postChat. */
export interface PostChatOptions {
  readonly headers?: Record<string, string>;
  /** Aborts the request after this many milliseconds (default 10 s) unless `signal` is given. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * The one way the suites post a chat request: POST {baseUrl}/chat/completions with a Bearer
 * `key` (none when undefined). An object body is JSON-encoded; a string or bytes are sent as
 * they are (malformed bodies).
 */
export function postChat(
  baseUrl: string,
  key: string | undefined,
  body: unknown,
  options: PostChatOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  return fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { ...headers, ...options.headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
    signal: options.signal ?? AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
}
