import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseBatchOutput } from './sse-batch-output.js';

const NODE_TEXT = 'data: {"model":"node-m","n":1}\n\ndata: {"model":"node-m","n":2}\n\n';

test('stretches of the node text, replaced strings in between, own chunks framed; take empties it', () => {
  const output = new SseBatchOutput();
  assert.equal(output.empty, true);
  const first = NODE_TEXT.indexOf('node-m');
  const second = NODE_TEXT.indexOf('node-m', first + 1);
  output.copy(NODE_TEXT, 0, first);
  output.insert('client');
  output.copy(NODE_TEXT, first + 6, second);
  output.insert('client');
  output.copy(NODE_TEXT, second + 6, NODE_TEXT.length);
  output.emit('{"usage":{"total_tokens":3}}');
  assert.equal(output.empty, false);
  assert.equal(output.take(), `${NODE_TEXT.replaceAll('node-m', 'client')}data: {"usage":{"total_tokens":3}}\n\n`);
  assert.equal(output.empty, true);
  assert.equal(output.take(), '');
});

test('adjacent stretches of one text join; a stretch of another text, or one not adjacent, starts anew', () => {
  const output = new SseBatchOutput();
  output.copy(NODE_TEXT, 0, 10);
  output.copy(NODE_TEXT, 10, NODE_TEXT.length);
  assert.equal(output.take(), NODE_TEXT);
  const other = `${NODE_TEXT}`.replace('n":1', 'n":9');
  output.copy(NODE_TEXT, 0, 5);
  output.copy(other, 5, 10);
  output.copy(NODE_TEXT, 12, 14);
  assert.equal(output.take(), NODE_TEXT.slice(0, 5) + other.slice(5, 10) + NODE_TEXT.slice(12, 14));
  output.copy(NODE_TEXT, 3, 7);
  output.endRun();
  output.copy(NODE_TEXT, 7, 9);
  assert.equal(output.take(), NODE_TEXT.slice(3, 9), 'ending a run keeps its text');
});
