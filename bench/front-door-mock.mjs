// A mock node for bench/front-doors.sh: one port that answers the three APIs a node may
// serve, each in its own wire format, with the same replies as the kit's chat fixtures
// (streams: 6 reasoning pieces, 12 answer pieces and their usage; JSON: the kit's answer
// text and usage, no reasoning): POST …/chat/completions (the kit's fixture files as they
// are), …/messages (Anthropic) and …/responses (OpenAI Responses). A body with "stream":true gets the stream, anything else the JSON reply.
// Bodies are rendered once at start, so the mock costs the same for every door.
//   node bench/front-door-mock.mjs PORT KIT_FIXTURES_DIR
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [port, fixtures] = [Number(process.argv[2]), process.argv[3]];
const REASONING = [
  'The user asks',
  ' for the capital',
  ' of France.',
  ' That is Paris;',
  ' answer briefly',
  ' with context.',
];
const ANSWER = [
  'The capital',
  ' of France',
  ' is Paris.',
  ' It has been',
  ' the political',
  ' and cultural',
  ' centre of the',
  ' country for',
  ' centuries, home',
  ' to the Eiffel',
  ' Tower and',
  ' the Louvre.',
];
const USAGE = { input: 57, output: 48, reasoning: 14 };
const MODEL = 'bench-upstream-model';

/** The kit's non-streaming reply: its answer text and usage, which the other APIs' JSON replies carry too. */
const KIT_REPLY = JSON.parse(readFileSync(join(fixtures, 'chat-completion.json'), 'utf8'));
const JSON_TEXT = KIT_REPLY.choices[0].message.content;
const JSON_USAGE = { input: KIT_REPLY.usage.prompt_tokens, output: KIT_REPLY.usage.completion_tokens };

const sse = (events) => events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');

function anthropicBodies() {
  const message = {
    id: 'msg_bench0000000000000000000001',
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content: [
      { type: 'thinking', thinking: REASONING.join(''), signature: 'c2lnbmF0dXJlLWJlbmNo' },
      { type: 'text', text: ANSWER.join('') },
    ],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: USAGE.input, output_tokens: USAGE.output },
  };
  const start = { ...message, content: [], stop_reason: null, usage: { input_tokens: USAGE.input, output_tokens: 1 } };
  const events = [
    ['message_start', { type: 'message_start', message: start }],
    [
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
    ],
    ...REASONING.map((thinking) => [
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking } },
    ]),
    [
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2lnbmF0dXJlLWJlbmNo' } },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
    ...ANSWER.map((text) => [
      'content_block_delta',
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text } },
    ]),
    ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: USAGE.output },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ];
  const reply = {
    ...message,
    content: [{ type: 'text', text: JSON_TEXT }],
    usage: { input_tokens: JSON_USAGE.input, output_tokens: JSON_USAGE.output },
  };
  return { json: JSON.stringify(reply), sse: sse(events) };
}

function responsesBodies() {
  const id = 'resp_bench0000000000000000000001';
  const reasoning = {
    id: 'rs_bench01',
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: REASONING.join('') }],
  };
  const text = ANSWER.join('');
  const message = {
    id: 'msg_bench01',
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
  const usage = {
    input_tokens: USAGE.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: USAGE.output,
    output_tokens_details: { reasoning_tokens: USAGE.reasoning },
    total_tokens: USAGE.input + USAGE.output,
  };
  const base = { id, object: 'response', created_at: 1735689600, model: MODEL, error: null, incomplete_details: null };
  const done = { ...base, status: 'completed', output: [reasoning, message], usage };
  const open = { ...base, status: 'in_progress', output: [], usage: null };
  let sequence = 0;
  const event = (type, fields) => [type, { type, sequence_number: sequence++, ...fields }];
  const events = [
    event('response.created', { response: open }),
    event('response.in_progress', { response: open }),
    event('response.output_item.added', { output_index: 0, item: { ...reasoning, summary: [] } }),
    event('response.reasoning_summary_part.added', {
      item_id: reasoning.id,
      output_index: 0,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
    }),
    ...REASONING.map((delta) =>
      event('response.reasoning_summary_text.delta', {
        item_id: reasoning.id,
        output_index: 0,
        summary_index: 0,
        delta,
      }),
    ),
    event('response.reasoning_summary_text.done', {
      item_id: reasoning.id,
      output_index: 0,
      summary_index: 0,
      text: REASONING.join(''),
    }),
    event('response.reasoning_summary_part.done', {
      item_id: reasoning.id,
      output_index: 0,
      summary_index: 0,
      part: reasoning.summary[0],
    }),
    event('response.output_item.done', { output_index: 0, item: reasoning }),
    event('response.output_item.added', { output_index: 1, item: { ...message, status: 'in_progress', content: [] } }),
    event('response.content_part.added', {
      item_id: message.id,
      output_index: 1,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    }),
    ...ANSWER.map((delta) =>
      event('response.output_text.delta', { item_id: message.id, output_index: 1, content_index: 0, delta }),
    ),
    event('response.output_text.done', { item_id: message.id, output_index: 1, content_index: 0, text }),
    event('response.content_part.done', {
      item_id: message.id,
      output_index: 1,
      content_index: 0,
      part: message.content[0],
    }),
    event('response.output_item.done', { output_index: 1, item: message }),
    event('response.completed', { response: done }),
  ];
  const reply = {
    ...done,
    output: [{ ...message, content: [{ type: 'output_text', text: JSON_TEXT, annotations: [] }] }],
    usage: {
      input_tokens: JSON_USAGE.input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: JSON_USAGE.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: JSON_USAGE.input + JSON_USAGE.output,
    },
  };
  return { json: JSON.stringify(reply), sse: sse(events) };
}

const BODIES = {
  chat: {
    json: readFileSync(join(fixtures, 'chat-completion.json'), 'utf8'),
    sse: readFileSync(join(fixtures, 'chat-completion.sse'), 'utf8'),
  },
  messages: anthropicBodies(),
  responses: responsesBodies(),
};

const server = createServer((request, response) => {
  const url = request.url ?? '';
  const api = url.endsWith('/chat/completions')
    ? 'chat'
    : url.endsWith('/messages')
      ? 'messages'
      : url.endsWith('/responses')
        ? 'responses'
        : undefined;
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    if (api === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"mock: unknown path"}}');
      return;
    }
    const stream = /"stream"\s*:\s*true/.test(body);
    const text = stream ? BODIES[api].sse : BODIES[api].json;
    response.writeHead(200, {
      'content-type': stream ? 'text/event-stream' : 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  });
});
// A gateway under callgrind on a loaded machine can leave a pooled connection idle past node's
// default 5 s and then reuse it as the mock closes it (503 router_unavailable, "connection
// reset"): idle connections are kept a minute.
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
