import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ModelConfig, NodeConfig } from '../../config/gateway-config.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';
import type { ChatCompletionChunk } from '../../protocol/openai/chat-response-types.js';
import { SseParser } from '../../streaming/sse-parser.js';
import type { CallContext } from '../types.js';
import { openaiAdapter } from './adapter.js';
import { unexpectedWrite } from '../../../test/support/adapter-fixtures.js';

const node: NodeConfig = {
  id: 'vllm-a',
  provider: 'openai',
  protocol: 'openai',
  baseUrl: 'http://127.0.0.1:1/v1',
  apiKey: 'node-secret',
  maxConcurrency: 4,
  weight: 1,
  timeouts: { connectMs: 1, firstByteMs: 1, idleMs: 1, totalMs: 1, minTokensPerSecond: 1 },
  replies: { maxJsonBytes: 1024 * 1024, maxEventBytes: 1024 * 1024 },
  reasoningParam: 'reasoning_effort',
  maxTokensField: 'max_tokens',
  anthropicVersion: '2023-06-01',
  nativeApis: new Set(),
  simulated: undefined,
};

const model: ModelConfig = {
  id: 'qwen3',
  ownedBy: 'x',
  created: 0,
  contextLength: undefined,
  maxOutputTokens: undefined,
  defaultMaxTokens: undefined,
  pricing: undefined,
  routes: [],
  reasoning: {
    defaultEffort: 'medium',
    style: 'budget',
    budgets: { low: 1024, medium: 8192, high: 24576 },
    levels: { low: 'low', medium: 'medium', high: 'high' },
  },
};

function context(overrides: Partial<CallContext> = {}): CallContext {
  return {
    requestId: 'req_1',
    correlationId: 'corr_1',
    clientModel: 'qwen3',
    upstreamModel: 'Qwen/Qwen3-32B',
    node,
    model,
    outputCap: { tokens: 4096, contextBound: false },
    effort: 'medium',
    stream: true,
    retryOnStatus: new Set([401, 403, 408, 429, 500, 502, 503, 504, 529]),
    ...overrides,
  };
}

const request: ChatRequest = {
  model: 'qwen3',
  messages: [{ role: 'user', content: 'Capital of France?' }],
  reasoning: { effort: 'high' },
  stream: true,
  temperature: 0.2,
  chat_template_kwargs: { enable_thinking: true },
};

test('toUpstream: node model name, effort in the node form, usage requested, extensions kept, ids and credentials in headers', () => {
  const call = openaiAdapter.toUpstream(request, context());
  const body = JSON.parse(call.body) as Record<string, unknown>;
  assert.equal(call.path, '/chat/completions');
  assert.equal(body.model, 'Qwen/Qwen3-32B');
  assert.equal(body.reasoning_effort, 'medium');
  assert.equal(body.reasoning, undefined);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.deepEqual(body.chat_template_kwargs, { enable_thinking: true });
  assert.equal(body.temperature, 0.2);
  assert.equal(call.headers.authorization, 'Bearer node-secret');
  assert.equal(call.headers['x-request-id'], 'req_1');
  assert.equal(call.headers['x-correlation-id'], 'corr_1');
});

test('toUpstream: OpenRouter-style nodes get reasoning as an object; non-reasoning models get nothing', () => {
  const openRouter = JSON.parse(
    openaiAdapter.toUpstream(request, context({ node: { ...node, reasoningParam: 'reasoning' } })).body,
  );
  assert.deepEqual(openRouter.reasoning, { effort: 'medium' });
  assert.equal(openRouter.reasoning_effort, undefined);
  const plain = JSON.parse(
    openaiAdapter.toUpstream({ ...request, reasoning_effort: 'high' }, context({ effort: undefined })).body,
  );
  assert.equal(plain.reasoning, undefined);
  assert.equal(plain.reasoning_effort, undefined);
});

test('toUpstream: a non-streaming call carries neither stream nor stream_options', () => {
  const body = JSON.parse(
    openaiAdapter.toUpstream(
      { ...request, stream: false, stream_options: { include_usage: true } },
      context({ stream: false }),
    ).body,
  );
  assert.equal(body.stream, undefined);
  assert.equal(body.stream_options, undefined);
});

test('fromUpstream: the node bytes are kept when nothing changes; `reasoning` becomes `reasoning_content`; model is the client id', () => {
  const untouched =
    '{"id":"c","object":"chat.completion","created":1,"model":"qwen3","choices":[{"index":0,"message":{"role":"assistant","content":"Hi","refusal":null,"reasoning_content":"hm"},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}';
  const same = openaiAdapter.fromUpstream(untouched, context({ stream: false }));
  assert.equal(same.body, untouched);
  assert.equal(same.summary.usage?.total_tokens, 3);
  assert.equal(same.summary.finishReason, 'stop');
  const renamed = openaiAdapter.fromUpstream(
    untouched.replace('"reasoning_content"', '"reasoning"'),
    context({ stream: false }),
  );
  const message = JSON.parse(renamed.body).choices[0].message;
  assert.equal(message.reasoning_content, 'hm');
  assert.equal('reasoning' in message, false);
  const nodeNamed = openaiAdapter.fromUpstream(
    untouched.replace('"model":"qwen3"', '"model":"Qwen/Qwen3-32B-0425"'),
    context({ stream: false }),
  );
  assert.equal(JSON.parse(nodeNamed.body).model, 'qwen3');
  assert.equal(nodeNamed.body, untouched, "only the model id changes: the rest is the node's text");
  const spaced = openaiAdapter.fromUpstream(
    untouched.replace('"model":"qwen3"', '"model": "Qwen/Qwen3-32B"'),
    context({ stream: false }),
  );
  assert.equal(JSON.parse(spaced.body).model, 'qwen3', 'a field not in compact form is re-serialized');
});

test("fromUpstream: what OpenAI's schema requires is added (refusal, logprobs), nulls it does not allow are dropped", () => {
  const sparse =
    '{"id":"c","object":"chat.completion","created":1,"model":"qwen3","system_fingerprint":null,"choices":[{"index":0,"message":{"role":"assistant","content":"Hi","annotations":null,"function_call":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":null}}';
  const body = JSON.parse(openaiAdapter.fromUpstream(sparse, context({ stream: false })).body);
  assert.deepEqual(body.choices[0], {
    index: 0,
    message: { role: 'assistant', content: 'Hi', refusal: null },
    logprobs: null,
    finish_reason: 'stop',
  });
  assert.equal('system_fingerprint' in body, false);
  assert.deepEqual(body.usage, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
});

test('fromUpstream: a body that is not a completion is a retryable bad_gateway', () => {
  for (const body of ['<html>oops</html>', '{"object":"list"}']) {
    assert.throws(
      () => openaiAdapter.fromUpstream(body, context()),
      (error: unknown) => error instanceof GatewayError && error.code === 'bad_gateway' && error.retryable,
    );
  }
});

/** The chunk texts the chat door's mapper (form `text`) writes, event by event (the `data: ` framing taken off). */
function mapFixture(pieces: string[]) {
  const mapper = openaiAdapter.streamMapper(context({ streamForm: 'text' }));
  const parser = new SseParser();
  // The mapper writes an event in pieces (head, data, tail); the text written is whole events.
  let written = '';
  let ended = false;
  const write = (text: string) => {
    written += text;
  };
  const onRecord = (record: { event: string | undefined; data: string }) => {
    if (mapper.map(record, unexpectedEmit, write) === 'end') ended = true;
  };
  for (const piece of pieces) parser.push(piece, onRecord);
  parser.end(onRecord);
  const events = written.split('\n\n');
  assert.equal(events.pop(), '', 'the text written ends with a whole event');
  const out = events.map((event) => {
    assert.ok(event.startsWith('data: '), event);
    return event.slice('data: '.length);
  });
  return { out, ended, summary: mapper.summary, identity: mapper.identity };
}

/** The chunks a door that maps them gets (form `chunks`). */
function mapFixtureToChunks(pieces: string[]) {
  const mapper = openaiAdapter.streamMapper(context());
  const parser = new SseParser();
  const out: ChatCompletionChunk[] = [];
  let ended = false;
  const onRecord = (record: { event: string | undefined; data: string }) => {
    if (mapper.map(record, (chunk) => out.push(chunk), unexpectedWrite) === 'end') ended = true;
  };
  for (const piece of pieces) parser.push(piece, onRecord);
  parser.end(onRecord);
  return { out, ended, summary: mapper.summary, identity: mapper.identity };
}

function unexpectedEmit(): never {
  throw new Error('the chat door mapper (form text) emitted a chunk');
}

test('stream mapper: renames vLLM `reasoning` deltas, shows the client model id, keeps other bytes as sent, collects usage', () => {
  const fixture = readFileSync(join(import.meta.dirname, '__fixtures__/vllm-reasoning.sse'), 'utf8');
  const whole = mapFixture([fixture]);
  assert.equal(whole.ended, true);
  assert.equal(whole.out.length, 6);
  const chunks = whole.out.map((json) => JSON.parse(json));
  assert.equal(chunks[1].choices[0].delta.reasoning_content, 'Think');
  assert.equal('reasoning' in chunks[1].choices[0].delta, false);
  for (const chunk of chunks) assert.equal(chunk.model, 'qwen3');
  const originalContentLine = fixture.split('\n').find((line) => line.includes('"content":"Paris"'));
  assert.equal(
    `data: ${whole.out[3]}`,
    originalContentLine?.replace('"model":"Qwen/Qwen3-32B"', '"model":"qwen3"'),
    'apart from the model id, events are forwarded as the node sent them',
  );
  assert.equal(whole.summary.usage?.total_tokens, 17);
  assert.equal(whole.summary.finishReason, 'stop');
  assert.equal(whole.summary.reasoningCharacters, 'Thinking é'.length);
  assert.deepEqual(whole.identity, { id: 'chatcmpl-v1', created: 1767225600, model: 'qwen3' });
  const bytewise = mapFixture([...fixture]);
  assert.deepEqual(bytewise.out, whole.out, 'same result when the stream arrives one character at a time');
  const objects = mapFixtureToChunks([fixture]);
  assert.equal(objects.ended, true);
  assert.deepEqual(objects.out, chunks, 'a door that maps chunks gets the same chunks, as objects');
  for (const field of ['usage', 'finishReason', 'reasoningCharacters', 'contentCharacters'] as const)
    assert.deepEqual(objects.summary[field], whole.summary[field], field);
  assert.deepEqual(objects.identity, whole.identity);
});

test('stream mapper: an error event from the node is thrown as a gateway error', () => {
  const mapper = openaiAdapter.streamMapper(context());
  assert.throws(
    () =>
      mapper.map(
        { event: undefined, data: '{"error":{"message":"The server had an error","type":"server_error"}}' },
        () => {},
        unexpectedWrite,
      ),
    (error: unknown) => error instanceof GatewayError && /The server had an error/.test(error.message),
  );
  assert.throws(
    () => mapper.map({ event: undefined, data: 'not json' }, () => {}, unexpectedWrite),
    (error: unknown) => error instanceof GatewayError && error.code === 'bad_gateway',
  );
});

test('toError: failover statuses are retryable; other client errors pass through with the original body', () => {
  const body = Buffer.from('{"error":{"message":"too long","code":"context_length_exceeded"}}');
  const passThrough = openaiAdapter.toError(400, body, 'application/json', context());
  assert.equal(passThrough.retryable, false);
  assert.equal(passThrough.upstream?.passThrough, true);
  assert.equal(passThrough.upstream?.body, body);
  for (const status of [401, 403, 408, 429, 500, 503, 529, 599]) {
    const error = openaiAdapter.toError(status, Buffer.from(''), undefined, context());
    assert.equal(error.retryable, true, `status ${status}`);
    assert.equal(error.upstream?.passThrough, false);
  }
});

test("toUpstream: the reserved output cap in the client's field or the node's; none when only the context bounds it", () => {
  const bodyWith = (fields: Partial<ChatRequest>, overrides: Partial<CallContext>) =>
    JSON.parse(openaiAdapter.toUpstream({ ...request, ...fields }, context(overrides)).body) as Record<string, unknown>;
  const capped = { outputCap: { tokens: 300, contextBound: false } };
  const nulls = bodyWith(
    { max_tokens: null, max_completion_tokens: null },
    { ...capped, node: { ...node, maxTokensField: 'max_completion_tokens' } },
  );
  assert.equal(nulls.max_completion_tokens, 300);
  assert.equal('max_tokens' in nulls, false, 'an explicit null is dropped: one field only');
  const both = bodyWith({ max_tokens: 9000, max_completion_tokens: 9000 }, capped);
  assert.deepEqual([both.max_tokens, both.max_completion_tokens], [300, 300]);
  const contextBound = bodyWith({}, { outputCap: { tokens: 30000, contextBound: true } });
  assert.equal(
    'max_tokens' in contextBound || 'max_completion_tokens' in contextBound,
    false,
    "the node's own context limit bounds the reply",
  );
});
