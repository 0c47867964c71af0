import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelField, writeEveryModelField } from './replace-model-field.js';

const node = modelField('gpt-4o-mini-2024-07-18');
const client = modelField('my "model"');

/** The text writeEveryModelField writes, its pieces joined. */
function replaceEveryModelField(text: string, nodeField: string, clientField: string): string {
  let written = '';
  writeEveryModelField(text, nodeField, clientField, (piece) => (written += piece));
  return written;
}

test('replaceEveryModelField swaps every model key of a run of events, and nothing else', () => {
  const events =
    'data: {"id":"a","model":"gpt-4o-mini-2024-07-18","choices":[{"delta":{"content":"say \\"model\\":\\"gpt-4o-mini-2024-07-18\\""}}]}\n\n' +
    'data: {"base_model":"gpt-4o-mini-2024-07-18","model":"gpt-4o-mini-2024-07-18"}\n\n';
  assert.equal(
    replaceEveryModelField(events, node, client),
    'data: {"id":"a","model":"my \\"model\\"","choices":[{"delta":{"content":"say \\"model\\":\\"gpt-4o-mini-2024-07-18\\""}}]}\n\n' +
      'data: {"base_model":"gpt-4o-mini-2024-07-18","model":"my \\"model\\""}\n\n',
  );
});

test('replaceEveryModelField returns the text itself when no field names the node model', () => {
  const text = 'data: {"model":"other"}\n\nmodel":"gpt-4o-mini-2024-07-18"';
  assert.equal(replaceEveryModelField(text, node, client), text);
  assert.equal(replaceEveryModelField('', node, client), '');
});
