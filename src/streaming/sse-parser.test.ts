import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SseRecord } from './stream-mapper.js';
import {
  countSseEvents,
  eachPlainEvent,
  PLAIN_EVENT_HEAD,
  PLAIN_EVENT_TAIL,
  plainEventAround,
  plainEventData,
  SseParser,
} from './sse-parser.js';

function parseInPieces(pieces: string[]): SseRecord[] {
  const parser = new SseParser();
  const records: SseRecord[] = [];
  for (const piece of pieces) parser.push(piece, (record) => records.push(record));
  parser.end((record) => records.push(record));
  return records;
}

const STREAM =
  ': OPENROUTER PROCESSING\n\n' +
  'data: {"a":1}\n\n' +
  'event: message_start\r\ndata: {"b":2}\r\n\r\n' +
  'data: line one\rdata:line two\r\r' +
  'id: 7\nretry: 100\n\n' +
  'data: [DONE]\n\n';

const EXPECTED: SseRecord[] = [
  { event: undefined, data: '{"a":1}' },
  { event: 'message_start', data: '{"b":2}' },
  { event: undefined, data: 'line one\nline two' },
  { event: undefined, data: '[DONE]' },
];

test('parses LF, CRLF and CR line endings, comments, event names and multi-line data', () => {
  assert.deepEqual(parseInPieces([STREAM]), EXPECTED);
});

test('gives the same records when fed one character at a time', () => {
  assert.deepEqual(parseInPieces([...STREAM]), EXPECTED);
});

test('gives the same records at seeded random split points', () => {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let round = 0; round < 200; round++) {
    const pieces: string[] = [];
    let start = 0;
    while (start < STREAM.length) {
      const size = 1 + Math.floor(random() * 12);
      pieces.push(STREAM.slice(start, start + size));
      start += size;
    }
    assert.deepEqual(parseInPieces(pieces), EXPECTED, `split ${JSON.stringify(pieces)}`);
  }
});

test('a CRLF split between chunks is one line end, not two', () => {
  assert.deepEqual(parseInPieces(['data: x\r', '\n\r', '\ndata: y\n\n']), [
    { event: undefined, data: 'x' },
    { event: undefined, data: 'y' },
  ]);
});

test('an event without a trailing blank line is dispatched when the body ends', () => {
  assert.deepEqual(parseInPieces(['data: {"last":true}']), [{ event: undefined, data: '{"last":true}' }]);
});

test('events with only a name or only comments are dropped; an empty data line is kept', () => {
  assert.deepEqual(parseInPieces(['event: ping\n\n: hi\n\ndata:\n\n']), [{ event: undefined, data: '' }]);
});

/** Like parseInPieces, with runs of plain events handed over whole; each record says which way it came. */
function parseWithPlainEvents(pieces: string[]): Array<SseRecord & { plain: boolean }> {
  const parser = new SseParser();
  const records: Array<SseRecord & { plain: boolean }> = [];
  const onRecord = (record: SseRecord) => records.push({ ...record, plain: false });
  const onPlain = (events: string) => {
    assert.ok(events.endsWith('\n\n'), 'a run holds whole events');
    for (const event of events.slice(0, -PLAIN_EVENT_TAIL).split('\n\n')) {
      assert.equal(event.slice(0, PLAIN_EVENT_HEAD), 'data: ');
      records.push({ event: undefined, data: event.slice(PLAIN_EVENT_HEAD), plain: true });
    }
  };
  for (const piece of pieces) parser.push(piece, onRecord, onPlain);
  parser.end(onRecord);
  return records;
}

test('runs of plain `data: …\\n\\n` events are handed over whole; every other form goes through the line parser', () => {
  // An event name, a data line not followed by a blank line, `data:` without its space: never plain (a comment is skipped).
  const mixed = 'data: a\n\nevent: x\ndata: b\n\ndata: c\ndata: d\n\n: note\ndata: e\n\ndata:f\n\ndata: g\n\n';
  assert.deepEqual(
    parseWithPlainEvents([mixed]).map(({ event, data, plain }) => [event, data, plain]),
    [
      [undefined, 'a', true],
      ['x', 'b', false],
      [undefined, 'c\nd', false],
      [undefined, 'e', true],
      [undefined, 'f', false],
      [undefined, 'g', true],
    ],
  );
  // Text with a carriage return anywhere ahead is left to the line parser (CR and CRLF line ends).
  const records = parseWithPlainEvents([STREAM]);
  assert.deepEqual(
    records.map(({ event, data }) => ({ event, data })),
    EXPECTED,
  );
  assert.ok(records.every((record) => !record.plain));
});

test('with plain events handed over in place, records are the same at seeded random split points', () => {
  const stream = `data: {"a":1}\n\n${STREAM}data: {"z":26}\n\ndata: {"y":25}\n\n`;
  const expected = parseInPieces([stream]);
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let round = 0; round < 300; round++) {
    const pieces: string[] = [];
    for (let start = 0; start < stream.length;) {
      const size = 1 + Math.floor(random() * 30);
      pieces.push(stream.slice(start, start + size));
      start += size;
    }
    assert.deepEqual(
      parseWithPlainEvents(pieces).map(({ event, data }) => ({ event, data })),
      expected,
      `split ${JSON.stringify(pieces)}`,
    );
  }
});

test('a long line split over many pieces is parsed whole', () => {
  const line = 'x'.repeat(4 * 1024 * 1024);
  const pieces = `data: ${line}\n\n`.match(/[^]{1,4096}/g) ?? [];
  const parser = new SseParser();
  const records: SseRecord[] = [];
  for (const piece of pieces) parser.push(piece, (record) => records.push(record));
  assert.equal(records.length, 1);
  assert.equal(records[0]?.data, line);
});

test('an event longer than the limit throws, for one long line and for many data lines', () => {
  const parser = new SseParser(1024);
  assert.throws(() => parser.push(`data: ${'y'.repeat(2000)}`, () => undefined), /more than 1024 characters/);
  const lines = new SseParser(1024);
  assert.throws(() => {
    for (let i = 0; i < 100; i++) lines.push(`data: ${'z'.repeat(20)}\n`, () => undefined);
  }, /more than 1024 characters/);
  const ok = new SseParser(1024);
  const records: SseRecord[] = [];
  ok.push(`data: ${'w'.repeat(1000)}\n\n`, (record) => records.push(record));
  assert.equal(records.length, 1);
});

test('the plain-event helpers cut a run the parser handed over, and find the event around a position', () => {
  const run = 'data: {"a":1}\n\ndata: [DONE]\n\ndata: {"b":"x\\n"}\n\n';
  const seen: string[] = [];
  assert.equal(
    eachPlainEvent(run, (data) => {
      seen.push(data);
    }),
    false,
  );
  assert.deepEqual(seen, ['{"a":1}', '[DONE]', '{"b":"x\\n"}']);
  const stopped: string[] = [];
  assert.equal(
    eachPlainEvent(run, (data) => {
      stopped.push(data);
      return data === '[DONE]';
    }),
    true,
  );
  assert.deepEqual(stopped, ['{"a":1}', '[DONE]']);
  const at = run.indexOf('[DONE]');
  const event = plainEventAround(run, at);
  assert.equal(run.slice(event.start, event.end), 'data: [DONE]\n\n');
  assert.equal(plainEventData(run, event.start, event.end), '[DONE]');
  assert.deepEqual(plainEventAround(run, 3), { start: 0, end: 'data: {"a":1}\n\n'.length });
  assert.equal(countSseEvents(run), 3);
  assert.equal(countSseEvents('event: a\ndata: 1\n\n'), 1);
  assert.equal(countSseEvents(''), 0);
});
