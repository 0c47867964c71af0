/**
 * A path segment (an id) URL-decoded; a malformed %-escape is kept as sent, so the id is
 * simply not found (404) rather than a decoding failure (500).
 */
export function decodePathSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
