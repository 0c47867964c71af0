/** The console's session cookie. */
export const SESSION_COOKIE = 'switchyard_console';

/** The value of cookie `name` in a Cookie header, if present. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1) continue;
    if (part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * The Set-Cookie of a session: HttpOnly (no script reads it), SameSite=Strict (no other
 * site's page sends it), Path=/console (sent to nothing else), Secure when served over TLS.
 * `maxAgeSeconds` 0 deletes it.
 */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    'Path=/console',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}
