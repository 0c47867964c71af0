import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calendarWindow, CalendarWindows } from './calendar-window.js';

const window = (period: 'day' | 'week' | 'month', at: string, zone: string) => {
  const found = calendarWindow(period, Date.parse(at), zone);
  return [new Date(found.start).toISOString(), new Date(found.end).toISOString()];
};

test('days, weeks and months start at local midnight, on Monday and on the 1st', () => {
  assert.deepEqual(window('day', '2026-11-27T12:00:00Z', 'UTC'), [
    '2026-11-27T00:00:00.000Z',
    '2026-11-28T00:00:00.000Z',
  ]);
  assert.deepEqual(window('week', '2026-11-29T23:59:59Z', 'UTC'), [
    '2026-11-23T00:00:00.000Z',
    '2026-11-30T00:00:00.000Z',
  ]);
  assert.deepEqual(window('week', '2026-11-30T00:00:00Z', 'UTC'), [
    '2026-11-30T00:00:00.000Z',
    '2026-12-07T00:00:00.000Z',
  ]);
  assert.deepEqual(window('month', '2026-12-31T23:00:00Z', 'UTC'), [
    '2026-12-01T00:00:00.000Z',
    '2027-01-01T00:00:00.000Z',
  ]);
  // Tokyo is 9 hours ahead: its December starts on November 30th at 15:00 UTC.
  assert.deepEqual(window('month', '2026-11-30T20:00:00Z', 'Asia/Tokyo'), [
    '2026-11-30T15:00:00.000Z',
    '2026-12-31T15:00:00.000Z',
  ]);
});

test('daylight saving: days of 23 and 25 hours, and a midnight the clock skips', () => {
  // Los Angeles springs forward on 2026-03-08 and falls back on 2026-11-01.
  assert.deepEqual(window('day', '2026-03-08T12:00:00Z', 'America/Los_Angeles'), [
    '2026-03-08T08:00:00.000Z',
    '2026-03-09T07:00:00.000Z',
  ]);
  assert.deepEqual(window('day', '2026-11-01T12:00:00Z', 'America/Los_Angeles'), [
    '2026-11-01T07:00:00.000Z',
    '2026-11-02T08:00:00.000Z',
  ]);
  // Santiago skips from 00:00 to 01:00 on 2026-09-06: that day starts at 01:00 local (04:00 UTC).
  assert.deepEqual(window('day', '2026-09-06T12:00:00Z', 'America/Santiago'), [
    '2026-09-06T04:00:00.000Z',
    '2026-09-07T03:00:00.000Z',
  ]);
});

test('CalendarWindows answers like calendarWindow across a boundary', () => {
  const windows = new CalendarWindows();
  for (const at of ['2026-03-10T23:59:59.999Z', '2026-03-11T00:00:00.000Z', '2026-03-10T12:00:00Z'])
    assert.deepEqual(windows.of('day', Date.parse(at), 'UTC'), calendarWindow('day', Date.parse(at), 'UTC'));
});
