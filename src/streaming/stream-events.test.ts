import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatCompletionChunk } from '../protocol/openai/chat-response-types.js';
import { chunksOf, isEmpty, NO_EVENTS, textOf } from './stream-events.js';

const chunk = (content: string): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});

test('chunk objects are framed as the chat door sends them, and read back as the same objects', () => {
  const chunks = [chunk('Hel'), chunk('lo "you"\n')];
  const text = textOf({ form: 'chunks', chunks });
  assert.equal(text, chunks.map((entry) => `data: ${JSON.stringify(entry)}\n\n`).join(''));
  assert.deepEqual(chunksOf({ form: 'text', text: `${text}data: [DONE]\n\n` }), chunks);
  assert.equal(chunksOf({ form: 'chunks', chunks }), chunks, 'objects are handed on as they are');
  assert.equal(textOf({ form: 'text', text }), text, 'text is handed on as it is');
});

test('chunk events written otherwise than in the plain framing are read by the one parser', () => {
  const text = `event: x\r\ndata: ${JSON.stringify(chunk('a'))}\r\n\r\n: comment\n\ndata: ${JSON.stringify(chunk('b'))}`;
  assert.deepEqual(
    chunksOf({ form: 'text', text }).map((entry) => entry.choices[0]?.delta.content),
    ['a', 'b'],
  );
});

test('nothing to send, in either form', () => {
  assert.equal(isEmpty(NO_EVENTS), true);
  assert.equal(isEmpty({ form: 'chunks', chunks: [] }), true);
  assert.equal(isEmpty({ form: 'text', text: 'data: x\n\n' }), false);
  assert.equal(isEmpty({ form: 'chunks', chunks: [chunk('')] }), false);
});
