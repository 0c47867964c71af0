import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelConfig, NodeConfig } from '../config/gateway-config.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { CallContext } from './types.js';
import { fromUpstream as anthropicReply } from './anthropic/from-upstream.js';
import { createStreamMapper as anthropicStream } from './anthropic/stream-mapper.js';
import { fromUpstream as geminiReply } from './gemini/from-upstream.js';
import { fromUpstream as openaiReply } from './openai/from-upstream.js';
import { nativeResponsesAdapter } from './openai/native-responses.js';
import { createStreamMapper as openaiStream } from './openai/stream-mapper.js';

// Node replies that break the loose read-schemas are invalid replies (502, retryable on
// another node), never a TypeError (500) or a misread; fields a node adds never matter.

const node = { id: 'node-a', timeouts: { totalMs: 1 } } as NodeConfig;
const context: CallContext = {
  requestId: 'req',
  correlationId: 'corr',
  clientModel: 'client-model',
  upstreamModel: 'upstream',
  node,
  model: {} as ModelConfig,
  outputCap: { tokens: 4096, contextBound: false },
  effort: undefined,
  stream: false,
  retryOnStatus: new Set(),
};

function assertInvalidReply(run: () => unknown, what: string): void {
  assert.throws(
    run,
    (error: unknown) => isGatewayError(error) && error.code === 'bad_gateway' && error.retryable === true,
    what,
  );
}

test('an Anthropic reply or event whose usage counts are not numbers is an invalid reply', () => {
  const reply = { type: 'message', content: [{ type: 'text', text: 'hi' }], usage: { input_tokens: '12' } };
  assertInvalidReply(() => anthropicReply(JSON.stringify(reply), context), 'reply');
  const mapper = anthropicStream(context);
  assertInvalidReply(
    () =>
      mapper.map(
        { event: 'message_start', data: '{"type":"message_start","message":"m"}' },
        () => undefined,
        () => undefined,
      ),
    'message_start without its message',
  );
  assertInvalidReply(
    () =>
      mapper.map(
        { event: 'message_delta', data: '{"type":"message_delta","usage":{"output_tokens":"9"}}' },
        () => undefined,
        () => undefined,
      ),
    'message_delta',
  );
});

test('fields a node adds never fail the schemas', () => {
  const anthropic = {
    type: 'message',
    content: [{ type: 'text', text: 'hi', extra: 1 }],
    usage: { input_tokens: 3, output_tokens: 2, new_counter: 'x' },
    new_field: { any: 'thing' },
  };
  assert.equal(anthropicReply(JSON.stringify(anthropic), context).summary.usage?.prompt_tokens, 3);
  const gemini = {
    candidates: [{ content: { parts: [{ text: 'hi' }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1, newCount: 'x' },
    modelVersion: 'x',
  };
  assert.equal(geminiReply(JSON.stringify(gemini), context).summary.usage?.prompt_tokens, 4);
  const openai = {
    id: 'x',
    model: 'client-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop', extra: true }],
    usage: { prompt_tokens: 5, completion_tokens: 1, extra: 'x' },
  };
  const mapped = openaiReply(JSON.stringify(openai), context);
  assert.equal(mapped.summary.usage?.total_tokens, 6, 'a total left out is the sum');
});

test('Gemini usage that is not counts, an OpenAI finish reason that is not a string: invalid replies', () => {
  assertInvalidReply(
    () => geminiReply(JSON.stringify({ candidates: [], usageMetadata: { promptTokenCount: '4' } }), context),
    'gemini usage',
  );
  assertInvalidReply(
    () => openaiReply(JSON.stringify({ choices: [{ message: {}, finish_reason: 7 }] }), context),
    'openai finish_reason',
  );
  assertInvalidReply(() => openaiReply('[]', context), 'not an object');
});

test('OpenAI usage in another shape is left to the estimate, not booked as it came', () => {
  const reply = { choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: '5' } };
  assert.equal(openaiReply(JSON.stringify(reply), context).summary.usage, undefined);
});

test('a stream event that is not an object, a lifecycle event without its Response: invalid replies', () => {
  const mapper = openaiStream(context, { relay: false });
  assertInvalidReply(
    () =>
      mapper.map(
        { event: undefined, data: 'null' },
        () => undefined,
        () => undefined,
      ),
    'null chunk',
  );
  const relay = nativeResponsesAdapter.streamMapper(context);
  assertInvalidReply(
    () =>
      relay.map(
        { event: 'response.completed', data: '{"type":"response.completed","response":{"usage":7}}' },
        () => undefined,
        () => undefined,
      ),
    'usage that is not an object',
  );
  assertInvalidReply(
    () => nativeResponsesAdapter.fromUpstream('{"output":"x"}', context),
    'a Response whose output is not a list',
  );
});
