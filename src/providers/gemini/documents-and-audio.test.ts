import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureContext, fixtureNode } from '../../../test/support/adapter-fixtures.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import { geminiAdapter } from './adapter.js';

// PRODUCT.md decision 21: `file` parts (base64 file_data) and `input_audio` become Gemini
// inlineData; what has no equivalent is a 400 naming the part.

const node = fixtureNode('gemini');
const bodyOf = (messages: unknown[]) => {
  const request = { model: 'client-model', messages } as ChatRequest;
  return JSON.parse(geminiAdapter.toUpstream(request, fixtureContext(node, {}, request)).body) as { contents: unknown };
};
const PDF = Buffer.from('%PDF-1.4 the yard timetable').toString('base64');
const WAV = Buffer.from('RIFF....WAVEfmt ').toString('base64');

test('gemini: file parts and input_audio become inlineData in order', () => {
  const body = bodyOf([
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Summarise both.' },
        {
          type: 'file',
          file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'manual.pdf' },
          cache_control: { type: 'ephemeral' },
        },
        { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } },
        { type: 'input_audio', input_audio: { data: WAV, format: 'mp3' } },
      ],
    },
  ]);
  assert.deepEqual(body.contents, [
    {
      role: 'user',
      parts: [
        { text: 'Summarise both.' },
        { inlineData: { mimeType: 'application/pdf', data: PDF } },
        { inlineData: { mimeType: 'audio/wav', data: WAV } },
        { inlineData: { mimeType: 'audio/mp3', data: WAV } },
      ],
    },
  ]);
});

test('gemini: a file by id, audio of an unknown format or without data, and media in an assistant turn are a 400 naming the part', () => {
  const cases: Array<[unknown[], string]> = [
    [[{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }], 'messages[0].content[0]'],
    [
      [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: WAV, format: 'midi' } }] }],
      'messages[0].content[0].input_audio.format',
    ],
    [
      [{ role: 'user', content: [{ type: 'input_audio', input_audio: { format: 'wav' } }] }],
      'messages[0].content[0].input_audio',
    ],
    [
      [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [{ type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}` } }] },
      ],
      'messages[1].content[0]',
    ],
  ];
  for (const [messages, param] of cases) {
    assert.throws(
      () => bodyOf(messages),
      (error: unknown) =>
        error instanceof GatewayError &&
        error.code === 'validation_failed' &&
        error.status === 400 &&
        error.param === param,
      param,
    );
  }
});

test('gemini: cachedContentTokenCount is the cached part of prompt_tokens', () => {
  const reply = {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Six.' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: 3000,
      cachedContentTokenCount: 2048,
      candidatesTokenCount: 40,
      totalTokenCount: 3040,
    },
  };
  const json = JSON.parse(geminiAdapter.fromUpstream(JSON.stringify(reply), fixtureContext(node)).body) as {
    usage: Record<string, unknown>;
  };
  assert.equal(json.usage.prompt_tokens, 3000);
  assert.deepEqual(json.usage.prompt_tokens_details, { cached_tokens: 2048 });
});
