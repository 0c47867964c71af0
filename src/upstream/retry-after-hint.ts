/**
 * A node's `Retry-After` header in whole seconds (RFC 9110 10.2.3: delay-seconds, or an
 * HTTP date, counted from `now`), at least 1; undefined when absent or unreadable.
 */
export function retryAfterHint(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Math.max(1, Number(text));
  // Every HTTP-date form starts with the day's name (IMF-fixdate, RFC 850, asctime); Date.parse
  // alone would take "-5" for a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(1, Math.ceil((date - now) / 1000));
}
