import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRequestContext } from '../../http/server.js';
import { gatewayError } from '../../errors/gateway-error.js';
import { messagesErrorBody } from './messages-error.js';
import { ReasoningEnvelope } from '../reasoning-envelope.js';
import { ThinkingSignatures } from './thinking-signatures.js';
import { toMessagesReply } from './to-messages-reply.js';

const envelopes = new ThinkingSignatures(new ReasoningEnvelope(Buffer.from('test-secret')));

function completion(message: Record<string, unknown>, finish: string) {
  return JSON.stringify({
    id: 'chatcmpl-x',
    object: 'chat.completion',
    created: 1,
    model: 'claude-gw',
    choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finish }],
  });
}

test('a chat reply becomes a message: thinking first with a sealed signature, text, tool_use with parsed input, tool_use stop', () => {
  const body = completion(
    {
      content: 'Let me look.',
      reasoning_content: 'I need the file.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/a"}' } },
        { id: 'call_2', type: 'function', function: { name: 'Now', arguments: '' } },
      ],
    },
    'stop',
  );
  const usage = {
    prompt_tokens: 100,
    completion_tokens: 20,
    total_tokens: 120,
    prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 10 },
  };
  const reply = JSON.parse(toMessagesReply(body, { requestId: 'R1', node: 'vllm-1', usage, envelopes })) as Record<
    string,
    unknown
  >;
  // Sealed with a fresh nonce each time: compared by what the signature opens to.
  const content = reply.content as Array<Record<string, unknown>>;
  content[0] = { ...content[0], signature: envelopes.open(content[0]?.signature) };
  assert.deepEqual(reply, {
    id: 'msg_R1',
    type: 'message',
    role: 'assistant',
    model: 'claude-gw',
    content: [
      { type: 'thinking', thinking: 'I need the file.', signature: { node: 'vllm-1' } },
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'call_1', name: 'Read', input: { file_path: '/a' } },
      { type: 'tool_use', id: 'call_2', name: 'Now', input: {} },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: {
      input_tokens: 30,
      cache_creation_input_tokens: 10,
      cache_read_input_tokens: 60,
      cache_creation: { ephemeral_5m_input_tokens: 10, ephemeral_1h_input_tokens: 0 },
      output_tokens: 20,
    },
  });
});

test('stop reasons of a plain reply: length → max_tokens, content_filter → refusal, stop → end_turn; empty text makes no block', () => {
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  const stopOf = (finish: string, content = 'x') =>
    JSON.parse(toMessagesReply(completion({ content }, finish), { requestId: 'R', node: 'n', usage, envelopes })) as {
      stop_reason: string;
      content: unknown[];
    };
  assert.equal(stopOf('length').stop_reason, 'max_tokens');
  assert.equal(stopOf('content_filter').stop_reason, 'refusal');
  assert.equal(stopOf('stop').stop_reason, 'end_turn');
  assert.deepEqual(stopOf('stop', '').content, []);
});

test('errors in Anthropic shape: types by status, request id, a node error of another protocol with its message', () => {
  const context = newRequestContext({ headers: {} } as never, undefined as never); // no snapshot: the error body reads none
  const body = (error: ReturnType<typeof gatewayError>) =>
    JSON.parse(messagesErrorBody(error, context)) as {
      type: string;
      error: { type: string; message: string };
      request_id: string;
    };
  const cases: Array<[Parameters<typeof gatewayError>[0], string]> = [
    ['validation_failed', 'invalid_request_error'],
    ['invalid_api_key', 'authentication_error'],
    ['insufficient_balance', 'billing_error'],
    ['access_denied', 'permission_error'],
    ['model_unavailable', 'not_found_error'],
    ['payload_too_large', 'invalid_request_error'],
    ['rate_limited', 'rate_limit_error'],
    ['internal_error', 'api_error'],
    ['bad_gateway', 'api_error'],
    ['router_unavailable', 'overloaded_error'],
    ['upstream_timeout', 'timeout_error'],
  ];
  for (const [code, type] of cases) {
    const rendered = body(gatewayError(code));
    assert.equal(rendered.type, 'error');
    assert.equal(rendered.error.type, type, code);
    assert.equal(rendered.request_id, context.requestId);
  }
  const overflow = gatewayError('validation_failed', {
    upstream: {
      nodeId: 'vllm',
      status: 400,
      passThrough: true,
      body: Buffer.from(
        JSON.stringify({
          error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' },
        }),
      ),
    },
  });
  assert.deepEqual(body(overflow).error, {
    type: 'invalid_request_error',
    message: "prompt is too long: This model's maximum context length is 8192 tokens",
  });
});

test('envelopes: sealed ones open with their node, anything else does not', () => {
  const sealed = envelopes.seal({ node: 'n.with.dots', toolSignatures: { a: 'b' } });
  assert.deepEqual(envelopes.open(sealed), { node: 'n.with.dots', toolSignatures: { a: 'b' } });
  assert.equal(new ThinkingSignatures(new ReasoningEnvelope(Buffer.from('other'))).open(sealed), undefined);
  assert.equal(envelopes.open('EqQBCkYIBRgCKkA'), undefined);
  assert.equal(envelopes.open(sealed.replace('swy2.', 'swy2.x')), undefined);
  // Altered anywhere (the last characters are the authentication tag; the very last one may
  // carry only padding bits, so the one before it is changed): not opened.
  const at = sealed.length - 2;
  const altered = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
  assert.equal(envelopes.open(altered), undefined);
  assert.equal(envelopes.open('swy2.'), undefined);
});
