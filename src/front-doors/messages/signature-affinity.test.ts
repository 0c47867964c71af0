import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SignatureAffinity, thinkingSignatures } from './signature-affinity.js';

const event = (signature: string) =>
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"${signature}"}}\n\n`;

test('signatures seen in native events name their node; the newest known one wins; memory is bounded', () => {
  const affinity = new SignatureAffinity(2);
  affinity.record(event('EqSignatureOfNodeA0001'), 'a');
  affinity.record(`{"content":[{"type":"thinking","thinking":"t","signature":"EqSignatureOfNodeB0002"}]}`, 'b');
  assert.equal(affinity.nodeOf(['EqSignatureOfNodeA0001']), 'a');
  assert.equal(affinity.nodeOf(['EqSignatureOfNodeA0001', 'EqSignatureOfNodeB0002', 'EqUnknownSignature0003']), 'b');
  assert.equal(affinity.nodeOf(['swy1.x.y.z']), undefined);
  affinity.record(event('EqSignatureOfNodeC0003'), 'c');
  assert.equal(affinity.nodeOf(['EqSignatureOfNodeA0001']), undefined, 'the oldest is forgotten');
  assert.equal(affinity.nodeOf(['EqSignatureOfNodeC0003']), 'c');
});

test('thinkingSignatures reads the assistant turns of a history in order', () => {
  assert.deepEqual(
    thinkingSignatures([
      { role: 'user', content: [{ type: 'thinking', thinking: '', signature: 'ignored' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'x', signature: 'one' },
          { type: 'text', text: 'a' },
        ],
      },
      { role: 'assistant', content: 'plain' },
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'd' },
          { type: 'thinking', thinking: 'y', signature: 'two' },
        ],
      },
    ]),
    ['one', 'two'],
  );
});
