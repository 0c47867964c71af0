/** Headers whose values are credentials and never leave the process. */
const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'cookie',
]);

/** Copy of `headers` with credential values replaced by "[redacted]". */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[] | undefined> {
  const redacted: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    redacted[name] = SECRET_HEADERS.has(name.toLowerCase()) && value !== undefined ? '[redacted]' : value;
  }
  return redacted;
}
