// In-process CPU cost of one translated stream through to a door's text: UpstreamCall →
// UpstreamEventReader (StringDecoder, SseParser) → the node's stream mapper → the door's
// stream mapping (Messages translator, Responses events, or the chat door's framing), for
// the kit's mock reply (bench-burst.sse) from an OpenAI node, and the same answer from an
// Anthropic node to a chat client. No sockets. With two compiled trees (e.g. a build of
// main and ./dist) rounds alternate between them in one process; the door's text must be
// the same (sealed signatures and clocks aside). Reports CPU µs (user + system) per stream.
//
//   npm run build && [DOOR_PATHS=<part of a name>] node bench/door-stream-cpu.mjs [DIST_A [DIST_B]] [iterations per round] [rounds]
//
// Trees from before typed stream events (the door re-parsed the internal SSE text) and
// after (the door maps chunk objects) are both read.
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { anthropicFixture, chatFixture } from './lib/stream-fixtures.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const args = process.argv.slice(2);
const roots = args.filter((argument) => Number.isNaN(Number(argument))).map((root) => resolve(root));
const [iterations = 2000, rounds = 9] = args.filter((argument) => !Number.isNaN(Number(argument))).map(Number);
if (roots.length === 0) roots.push(resolve(here, '../dist'));

const baseContext = {
  requestId: 'req',
  correlationId: 'corr',
  clientModel: 'gpt-4o-mini',
  upstreamModel: 'gpt-4o-mini',
  node: { id: 'mock', timeouts: { totalMs: 1 } },
  model: {},
  effort: undefined,
  stream: true,
  retryOnStatus: new Set(),
};
const controller = { paused: false, aborted: false, reason: null, pause() {}, resume() {}, abort() {} };
const openaiBytes = Buffer.from(chatFixture);
const anthropicBytes = Buffer.from(anthropicFixture());

/** Sealed signatures and clocks differ run to run. */
const comparable = (text) =>
  text
    .replace(/"signature":"[^"]*"/g, '"signature":""')
    .replace(/"swy2\.[\w-]+"/g, '""')
    .replace(/"(created|created_at|completed_at)":\d+/g, '"$1":0');

async function load(root) {
  const module = (path) => import(pathToFileURL(`${root}/${path}`).href);
  const { UpstreamCall } = await module('upstream/upstream-call.js');
  const { UpstreamEventReader } = await module('streaming/upstream-event-reader.js');
  const { Cancellation } = await module('upstream/cancellation.js');
  const { openaiAdapter } = await module('providers/openai/adapter.js');
  const { anthropicAdapter } = await module('providers/anthropic/adapter.js');
  // The Messages door's folder: front-doors/messages/ since the door type, front-doors/anthropic/ before.
  const messagesDoorModule = (file) =>
    module(`front-doors/messages/${file}`).catch(() => module(`front-doors/anthropic/${file}`));
  const { MessagesStreamTranslator } = await messagesDoorModule('messages-stream-translator.js');
  const { ThinkingSignatures } = await messagesDoorModule('thinking-signatures.js');
  const { ReasoningEnvelope } = await module('front-doors/reasoning-envelope.js');
  const { ResponseStreamEvents } = await module('front-doors/responses/response-stream-events.js');
  const { ResponseObject } = await module('front-doors/responses/response-object.js');
  const { ToolNames } = await module('front-doors/responses/tool-names.js');
  // The chat door's framing of chunk objects, in a tree that has them.
  const streamEvents = await module('streaming/stream-events.js').catch(() => undefined);
  const envelope = new ReasoningEnvelope(Buffer.from('bench-secret'));
  const envelopes = new ThinkingSignatures(envelope);

  /** A batch as the door of a tree takes it: chunk objects (typed events) or the internal text (before). */
  const eventsOf = (batch) => (batch.form === 'chunks' ? batch.chunks : batch.text);
  const textOf = (batch) => (batch.form === undefined ? batch.text : streamEvents.textOf(batch));

  async function oneStream(bytes, mapper, door) {
    const call = new UpstreamCall(new Cancellation());
    call.onRequestStart(controller);
    call.onResponseStart(controller, 200, {});
    const response = await call.promise;
    const reader = new UpstreamEventReader(response.body, mapper);
    const first = reader.read();
    call.onResponseData(controller, bytes);
    call.onResponseEnd(controller, {});
    let out = '';
    for (let batch = await first; ; batch = await reader.read()) {
      if (batch.done) return out + door.end(batch, mapper.summary.usage);
      out += door.write(batch);
    }
  }

  const messagesDoor = () => {
    const translator = new MessagesStreamTranslator({
      requestId: 'req',
      model: 'gpt-4o-mini',
      inputTokensEstimate: 30,
      node: () => 'mock',
      envelopes,
    });
    return {
      write: (batch) => translator.write(eventsOf(batch)),
      end: (batch, usage) => translator.end(eventsOf(batch), usage),
    };
  };
  const responsesDoor = () => {
    const request = { model: 'gpt-4o-mini', input: 'hi' };
    const events = new ResponseStreamEvents(
      new ResponseObject('resp_bench', 1767225600, 'gpt-4o-mini', request),
      { responseId: 'resp_bench', toolNames: new ToolNames(), summaryMode: false, includeEncrypted: false, envelope },
      () => 'mock',
    );
    return {
      write: (batch) => events.write(eventsOf(batch)),
      end: (batch, usage) => events.end(eventsOf(batch), usage).events,
    };
  };
  const chatDoor = () => ({ write: textOf, end: textOf });
  // The context a door's stream gets (typed events: objects; the old trees ignore the field).
  const chunks = { ...baseContext, streamForm: 'chunks' };
  const text = { ...baseContext, streamForm: 'text' };
  return {
    'messages door ← OpenAI node': () => oneStream(openaiBytes, openaiAdapter.streamMapper(chunks), messagesDoor()),
    'responses door ← OpenAI node': () => oneStream(openaiBytes, openaiAdapter.streamMapper(chunks), responsesDoor()),
    'chat door ← Anthropic node': () => oneStream(anthropicBytes, anthropicAdapter.streamMapper(chunks), chatDoor()),
    'chat door ← OpenAI node (pass-through)': () =>
      oneStream(openaiBytes, openaiAdapter.streamMapper(text), chatDoor()),
  };
}

const trees = [];
for (const root of roots) trees.push({ root, paths: await load(root) });
// DOOR_PATHS=<text>: only the paths whose name holds it.
const names = Object.keys(trees[0].paths).filter((name) => name.includes(process.env.DOOR_PATHS ?? ''));
for (const name of names) {
  const outputs = await Promise.all(trees.map((tree) => tree.paths[name]()));
  if (outputs.some((output) => comparable(output) !== comparable(outputs[0])))
    throw new Error(`${name}: the trees send different text`);
}
const results = new Map();
for (const name of names) {
  for (const tree of trees) for (let i = 0; i < 1000; i++) await tree.paths[name]();
  for (let round = 0; round < rounds; round++) {
    for (const tree of trees) {
      const start = process.cpuUsage();
      for (let i = 0; i < iterations; i++) await tree.paths[name]();
      const used = process.cpuUsage(start);
      const key = `${name}\u0000${tree.root}`;
      results.set(key, [...(results.get(key) ?? []), (used.user + used.system) / iterations]);
    }
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const name of names) {
  console.log(name);
  for (const tree of trees)
    console.log(`  ${tree.root}: ${median(results.get(`${name}\u0000${tree.root}`)).toFixed(1)} µs CPU per stream`);
}
