/** What stands for a secret in a kept body. */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are placeholders (vLLM's `EMPTY`), not secrets worth a scan. */
const MIN_SECRET_CHARS = 8;

/**
 * Secret-looking text in a body: `sk-…`/`sk_…` API keys (ours are `sk-sy-…`, OpenAI's and
 * Anthropic's `sk-…`), a Bearer token, and the value of an `authorization`, `x-api-key` or
 * `api-key` member or header line.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\bsk[-_][A-Za-z0-9_-]{8,}/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /("(?:authorization|x-api-key|api-key|x-goog-api-key)"\s*:\s*")(?:[^"\\]|\\.)*"/gi,
  /\b((?:authorization|x-api-key|api-key|x-goog-api-key)\s*:\s*)[^\s",}]{8,}/gi,
];

/**
 * A body as the request record keeps it: each known secret (the gateway's keys from the
 * configuration, the admin key, every node's key) and everything secret-looking replaced
 * by `[redacted]`. Runs in the writer, off the request path.
 */
export function redactSecrets(text: string, knownSecrets: readonly string[]): string {
  let redacted = text;
  for (const secret of knownSecrets) {
    if (secret.length >= MIN_SECRET_CHARS && redacted.includes(secret))
      redacted = redacted.split(secret).join(REDACTED);
  }
  for (const pattern of SECRET_PATTERNS) {
    redacted = redacted.replace(pattern, (match: string, lead?: string) => {
      if (typeof lead !== 'string') return REDACTED;
      if (/^(bearer|basic)$/i.test(lead)) return `${lead} ${REDACTED}`;
      return lead.endsWith('"') ? `${lead}${REDACTED}"` : `${lead}${REDACTED}`;
    });
  }
  return redacted;
}

/** The first `maxBytes` UTF-8 bytes of `text` (never half a character), with a marker when cut. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return text;
  const bytes = Buffer.from(text).subarray(0, maxBytes);
  // A partial character at the end decodes to U+FFFD: drop it.
  const cut = bytes.toString('utf8').replace(/\uFFFD$/, '');
  return `${cut}…[cut at ${maxBytes} bytes]`;
}
