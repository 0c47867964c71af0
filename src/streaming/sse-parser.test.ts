import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SseRecord } from '../providers/types.js';
import { SseParser } from './sse-parser.js';

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
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
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
