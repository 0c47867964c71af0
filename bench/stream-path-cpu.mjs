// In-process CPU cost of the streaming path for one stream of the bench kit's mock reply
// (22 SSE events in one network chunk): the undici handler (UpstreamCall) → UpstreamEventReader
// (StringDecoder, SseParser) → OpenAI stream mapper → the text encoded as a socket write
// would. No sockets, no server: for comparing versions of those modules, not for the
// gateway's throughput.
//
//   npm run build && node bench/stream-path-cpu.mjs [DIST_A [DIST_B]] [iterations per round] [rounds]
//
// With two compiled trees (e.g. a build of main in /tmp/main-dist and ./dist) the rounds
// alternate between them in one process, so a busy machine disturbs both alike; the
// output must be byte-identical. Reports CPU µs (user + system) per stream.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const args = process.argv.slice(2);
const roots = args.filter((argument) => Number.isNaN(Number(argument))).map((root) => resolve(root));
const [iterations = 5000, rounds = 20] = args.filter((argument) => !Number.isNaN(Number(argument))).map(Number);
if (roots.length === 0) roots.push(resolve(here, '../dist'));
const fixture = readFileSync(`${here}../src/providers/openai/__fixtures__/bench-burst.sse`);
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

const variants = [];
for (const root of roots) {
  const { UpstreamCall } = await import(pathToFileURL(`${root}/upstream/upstream-call.js`).href);
  const { UpstreamEventReader } = await import(pathToFileURL(`${root}/streaming/upstream-event-reader.js`).href);
  const { openaiAdapter } = await import(pathToFileURL(`${root}/providers/openai/adapter.js`).href);
  const { Cancellation } = await import(pathToFileURL(`${root}/upstream/cancellation.js`).href);
  let output = '';
  async function oneStream(keep) {
    const call = new UpstreamCall(new Cancellation());
    call.onRequestStart(controller);
    call.onResponseStart(controller, 200, {});
    const response = await call.promise;
    const mapper = openaiAdapter.streamMapper(context);
    const reader = new UpstreamEventReader(response.body, mapper);
    const first = reader.read();
    call.onResponseData(controller, fixture);
    call.onResponseEnd(controller, {});
    for (let batch = await first; ; batch = await reader.read()) {
      if (keep) output += batch.text;
      if (batch.done) break;
    }
    if (keep) {
      // (The character counts are left out: the fixture ends with the node's usage, and from
      // stream-cpu's 2nd cut on the relay lets the text it kept for them go at the end.)
      const { usage, finishReason } = mapper.summary;
      output += JSON.stringify({ usage, finishReason });
    }
  }
  await oneStream(true);
  variants.push({ root, oneStream, output, results: [] });
}
if (variants.some((variant) => variant.output !== variants[0].output))
  throw new Error('the trees send different bytes');
for (const variant of variants) for (let i = 0; i < 3000; i++) await variant.oneStream(false);
for (let round = 0; round < rounds; round++) {
  for (const variant of variants) {
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await variant.oneStream(false);
    const used = process.cpuUsage(start);
    variant.results.push((used.user + used.system) / iterations);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const variant of variants) {
  console.log(
    `${variant.root}: ${median(variant.results).toFixed(1)} µs CPU per stream (median of ${rounds} rounds; min ${Math.min(...variant.results).toFixed(1)})`,
  );
}
if (variants.length === 2) {
  const ratios = variants[0].results.map((a, round) => variants[1].results[round] / a);
  console.log(`second / first, median of per-round ratios: ${median(ratios).toFixed(3)}`);
}
