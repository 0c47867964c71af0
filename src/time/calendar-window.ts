import type { BudgetPeriod } from '../config/gateway-config.js';

/** A calendar window: from `start` (inclusive) to `end` (exclusive), epoch milliseconds. */
export interface CalendarWindow {
  readonly start: number;
  readonly end: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  return format;
}

interface LocalTime {
  readonly year: number;
  /** 1..12 */
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

function localTime(epochMs: number, timeZone: string): LocalTime {
  const fields: Record<string, number> = {};
  for (const part of formatOf(timeZone).formatToParts(epochMs))
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  return {
    year: fields.year ?? 1970,
    month: fields.month ?? 1,
    day: fields.day ?? 1,
    hour: fields.hour ?? 0,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
  };
}

/** The zone's offset from UTC at the instant, in ms (local = UTC + offset). */
function offsetAt(epochMs: number, timeZone: string): number {
  const local = localTime(epochMs, timeZone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return asUtc - (epochMs - (((epochMs % 1000) + 1000) % 1000));
}

/**
 * The first instant at which the zone's wall clock shows midnight of the given local date
 * (or, where a DST change skips midnight, the first instant of that date).
 */
function localMidnight(year: number, month: number, day: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day);
  // Two passes settle the offset; a third is needed only at a DST change.
  let guess = wall - offsetAt(wall, timeZone);
  for (let pass = 0; pass < 3; pass++) {
    const next = wall - offsetAt(guess, timeZone);
    if (next === guess) break;
    guess = next;
  }
  // Midnight skipped (the clock jumped over it): the date starts when the jump lands.
  const local = localTime(guess, timeZone);
  if (Date.UTC(local.year, local.month - 1, local.day) < wall) {
    let low = guess;
    let high = guess + 3 * 3_600_000;
    while (high - low > 1000) {
      const middle = Math.floor((low + high) / 2 / 1000) * 1000;
      const at = localTime(middle, timeZone);
      if (Date.UTC(at.year, at.month - 1, at.day) < wall) low = middle;
      else high = middle;
    }
    return high;
  }
  return guess;
}

/** The local calendar date `days` after the given one. */
function addDays(year: number, month: number, day: number, days: number): [number, number, number] {
  const date = new Date(Date.UTC(year, month - 1, day + days));
  return [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
}

/**
 * The calendar window of `period` that contains `epochMs` in `timeZone`: a day from local
 * midnight, a week from Monday's local midnight, a month from the 1st's. DST-safe: a day
 * is 23 or 25 hours long where the zone changes its clocks.
 */
export function calendarWindow(period: BudgetPeriod, epochMs: number, timeZone: string): CalendarWindow {
  const local = localTime(epochMs, timeZone);
  let first: [number, number, number];
  let next: [number, number, number];
  if (period === 'day') {
    first = [local.year, local.month, local.day];
    next = addDays(local.year, local.month, local.day, 1);
  } else if (period === 'week') {
    const weekday = (new Date(Date.UTC(local.year, local.month - 1, local.day)).getUTCDay() + 6) % 7;
    first = addDays(local.year, local.month, local.day, -weekday);
    next = addDays(...first, 7);
  } else {
    first = [local.year, local.month, 1];
    next = local.month === 12 ? [local.year + 1, 1, 1] : [local.year, local.month + 1, 1];
  }
  return { start: localMidnight(...first, timeZone), end: localMidnight(...next, timeZone) };
}

/**
 * calendarWindow with the last answer per zone and period kept: requests in the same window
 * (nearly all of them) cost a comparison, not a date computation.
 */
export class CalendarWindows {
  private readonly last = new Map<string, CalendarWindow>();

  of(period: BudgetPeriod, epochMs: number, timeZone: string): CalendarWindow {
    const key = `${timeZone} ${period}`;
    const known = this.last.get(key);
    if (known !== undefined && epochMs >= known.start && epochMs < known.end) return known;
    const window = calendarWindow(period, epochMs, timeZone);
    if (this.last.size > 64) this.last.clear();
    this.last.set(key, window);
    return window;
  }
}
