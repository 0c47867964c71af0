/**
 * The current time as an ISO 8601 UTC string with milliseconds, the same text as
 * `new Date().toISOString()`. Formatting a Date costs about a microsecond; every usage
 * row takes a timestamp, so the text up to the seconds is kept for the current second
 * and only the milliseconds are appended.
 */
let secondStart = Number.NaN;
let secondText = '';

export function isoNow(epochMs: number = Date.now()): string {
  const millis = epochMs - secondStart;
  if (millis >= 0 && millis < 1000) return secondText + MILLIS[millis];
  secondStart = epochMs - (((epochMs % 1000) + 1000) % 1000);
  secondText = new Date(secondStart).toISOString().slice(0, 19);
  return secondText + MILLIS[epochMs - secondStart];
}

/** `.000Z` … `.999Z`. */
const MILLIS = Array.from({ length: 1000 }, (_, millis) => `.${String(millis).padStart(3, '0')}Z`);
