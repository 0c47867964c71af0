// In-process CPU cost of one stream on the Messages door's native path (an Anthropic node's
// events relayed to a Messages client: providers/anthropic/native-messages.ts) next to the
// chat door's pass-through path (an OpenAI node's events relayed to a chat client), for the
// same answer: the kit's mock reply (bench-burst.sse) and the same deltas as Anthropic
// events. UpstreamCall → UpstreamEventReader (StringDecoder, SseParser) → the stream mapper;
// no sockets. Issue 19 asks that the native path cost no more CPU than the chat path.
//
//   npm run build && node bench/messages-path-cpu.mjs [iterations per round] [rounds]
import { fileURLToPath, pathToFileURL } from 'node:url';
import { anthropicFixture, chatFixture } from './lib/stream-fixtures.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const [iterations = 5000, rounds = 20] = process.argv.slice(2).map(Number);
const root = `${here}../dist`;

const { UpstreamCall } = await import(pathToFileURL(`${root}/upstream/upstream-call.js`).href);
const { UpstreamEventReader } = await import(pathToFileURL(`${root}/streaming/upstream-event-reader.js`).href);
const { Cancellation } = await import(pathToFileURL(`${root}/upstream/cancellation.js`).href);
const { openaiAdapter } = await import(pathToFileURL(`${root}/providers/openai/adapter.js`).href);
const { anthropicNativeMessages } = await import(pathToFileURL(`${root}/providers/anthropic/native-messages.js`).href);

const context = {
  requestId: 'req',
  correlationId: 'corr',
  clientModel: 'gpt-4o-mini',
  upstreamModel: 'gpt-4o-mini',
  node: { id: 'mock', timeouts: { totalMs: 1 } },
  model: {},
  effort: undefined,
  stream: true,
  // The chat door's form: an OpenAI node's events pass through as text.
  streamForm: 'text',
  retryOnStatus: new Set(),
};
const controller = { paused: false, aborted: false, reason: null, pause() {}, resume() {}, abort() {} };

function variant(name, fixture, mapperFor) {
  const bytes = Buffer.from(fixture);
  return {
    name,
    results: [],
    async oneStream() {
      const call = new UpstreamCall(new Cancellation());
      call.onRequestStart(controller);
      call.onResponseStart(controller, 200, {});
      const response = await call.promise;
      const mapper = mapperFor();
      const reader = new UpstreamEventReader(response.body, mapper);
      const first = reader.read();
      call.onResponseData(controller, bytes);
      call.onResponseEnd(controller, {});
      let length = 0;
      for (let batch = await first; ; batch = await reader.read()) {
        length += batch.text.length;
        if (batch.done) break;
      }
      if (mapper.summary.usage === undefined) throw new Error(`${name}: no usage read`);
      return length;
    },
  };
}

const variants = [
  variant('chat door, OpenAI node (relay)', chatFixture, () => openaiAdapter.streamMapper(context)),
  variant('messages door, Anthropic node (native relay)', anthropicFixture(), () =>
    anthropicNativeMessages.streamMapper(context),
  ),
];
for (const entry of variants) for (let i = 0; i < 3000; i++) await entry.oneStream();
for (let round = 0; round < rounds; round++) {
  for (const entry of variants) {
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await entry.oneStream();
    const used = process.cpuUsage(start);
    entry.results.push((used.user + used.system) / iterations);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const entry of variants)
  console.log(`${entry.name}: ${median(entry.results).toFixed(1)} µs CPU per stream (median of ${rounds} rounds)`);
const ratios = variants[0].results.map((chat, round) => variants[1].results[round] / chat);
console.log(`messages native / chat, median of per-round ratios: ${median(ratios).toFixed(3)}`);
