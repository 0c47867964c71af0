/** A date, or a date and time with its zone: `2027-01-31`, `2027-01-31T18:00:00Z`, `2027-01-31T18:00+02:00`. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

/**
 * Epoch ms of an ISO 8601 time that says its zone (a date alone is midnight UTC), or
 * undefined for anything else: a time without a zone would mean a different instant on
 * each machine.
 */
export function parseIsoTime(text: string): number | undefined {
  if (!ISO_TIME.test(text)) return undefined;
  const time = Date.parse(text);
  return Number.isFinite(time) ? time : undefined;
}
