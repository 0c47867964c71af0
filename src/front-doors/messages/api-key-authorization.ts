import type { IncomingMessage } from 'node:http';

/**
 * The key a client of the Anthropic routes presents (PRODUCT.md decision 16), as an
 * `Authorization` value: the key in `x-api-key` when present (the SDK's `apiKey`, Claude
 * Code's `ANTHROPIC_API_KEY`), else `Authorization: Bearer` (`authToken`, `ANTHROPIC_AUTH_TOKEN`).
 */
export function apiKeyAuthorization(request: IncomingMessage): string | undefined {
  const header = request.headers['x-api-key'];
  const apiKey = Array.isArray(header) ? header[0] : header;
  return apiKey === undefined || apiKey === '' ? request.headers.authorization : `Bearer ${apiKey}`;
}
