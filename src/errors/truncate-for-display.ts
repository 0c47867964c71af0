/**
 * Longest client-supplied string (a model name, a param path, a URL path) an error message
 * or a log line repeats in full; longer ones are cut, with a visible marker. Not a knob:
 * errors are made everywhere, without the configuration, and 256 characters name any real
 * model or parameter.
 */
export const MAX_DISPLAY_CHARS = 256;

const MARKER_TO_END = /^…\[\+\d+ chars\]$/;

/**
 * `value` as a message or log line may show it: unchanged up to `max` characters, else
 * its first `max` characters and `…[+N chars]` (N the characters cut), so a 1 MB model
 * name costs a 404 body and a log line of a few hundred bytes and the reader still sees
 * that it was longer. Never splits a surrogate pair; a string it already cut comes back as is.
 */
export function truncateForDisplay(value: string, max: number = MAX_DISPLAY_CHARS): string {
  if (value.length <= max) return value;
  let keep = max;
  const last = value.charCodeAt(keep - 1);
  if (last >= 0xd800 && last <= 0xdbff) keep--;
  // Already cut (an error's params handed on to a new error): the marker keeps the first count.
  const marker = value.lastIndexOf('…[+', max);
  if (marker !== -1 && MARKER_TO_END.test(value.slice(marker))) return value;
  return `${value.slice(0, keep)}…[+${value.length - keep} chars]`;
}
