#!/usr/bin/env node
// `npm run scale-test [-- --streams N --tokens-per-second R --tokens T]`
//
// Holds N concurrent slow streams (default 10,000) through ONE gateway process and reports
// its memory per stream. Each stream is a reasoning reply (medium effort: ~60-100 tokens)
// at R tokens per second (default 1, so 60-100 s), opened at --ramp-per-second (default
// 250/s: faster bursts overflow the listen backlog of 511 on a busy 2-core machine). Three processes, all on 127.0.0.1: a simulated node (R tokens per
// second), the built gateway (dist/cli.js), and this driver that opens the streams and
// reads them to the end. Each stream costs the gateway two file descriptors (client
// socket + node socket), so the gateway needs `ulimit -n` above 2 N + ~50; the driver and
// the node need N + ~50 each. The script refuses to start when the limit is too low.
//
// Per-stream memory is printed three ways. The figure, (plateau − baseline) / in
// flight, read when every stream has had its first chunk: by then streams opened first have
// ended, so it divides their garbage and whatever they left behind by the streams still
// held, and heapUsed at a random moment includes old-generation garbage. Beside it: RSS at
// the most streams held at once (sampled every 250 ms), and the live heap after a full
// collection (over the inspector: `--inspect=127.0.0.1:0`, `HeapProfiler.collectGarbage`),
// at baseline, at the plateau and after every stream ended, which splits what a finished
// stream leaves behind (its record in the memory store) from what a held stream holds.
// `--floor` runs bench/floor-forwarder.mjs (node:http + undici, nothing else) in place of
// the gateway, for what Node's own per-connection state costs. `--heap-snapshot` starts the
// gateway with `--heapsnapshot-signal=SIGUSR2` and writes a snapshot at baseline and at the
// plateau into a temporary folder (analyse with bench/heap-snapshot-summary.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, WebSocket, request } from 'undici';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '10000' },
    'tokens-per-second': { type: 'string', default: '1' },
    tokens: { type: 'string', default: '200' },
    'ramp-per-second': { type: 'string', default: '250' },
    floor: { type: 'boolean', default: false },
    'heap-snapshot': { type: 'boolean', default: false },
    // A longer prompt (characters of filler after the short one): what a held stream keeps of its request.
    'prompt-characters': { type: 'string', default: '0' },
    // Seconds after the first stream opened at which the live heap (and snapshot) is read: default, at the plateau.
    'measure-at': { type: 'string', default: '0' },
  },
});
const STREAMS = Number(values.streams);
const TOKENS_PER_SECOND = Number(values['tokens-per-second']);
const MAX_TOKENS = Number(values.tokens);
const RAMP_PER_SECOND = Number(values['ramp-per-second']);
const KEY = 'sk-scale-test-0123456789abcdef';
const ADMIN_KEY = 'admin-scale-test-0123456789abcdef';
const FD_RESERVE = 60;
const FLOOR = values.floor;
const SNAPSHOT_DIR = values['heap-snapshot'] ? mkdtempSync(join(tmpdir(), 'switchyard-scale-snapshots-')) : undefined;

function fail(message) {
  console.error(`scale-test: ${message}`);
  process.exit(1);
}

function fdLimit() {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('Max open files'));
  return Number(line?.split(/\s+/)[3]);
}

let stopping = false;
const limit = fdLimit();
if (2 * STREAMS + FD_RESERVE > limit) {
  fail(
    `ulimit -n is ${limit}: ${STREAMS} streams need ${2 * STREAMS + FD_RESERVE} descriptors in the gateway (2 per stream). Raise the limit or pass --streams ${Math.floor((limit - FD_RESERVE) / 2)}.`,
  );
}

/** Starts a child and resolves with the first stdout/stderr match of `pattern`. */
function startChild(args, pattern, name, env = process.env) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${seen}`)), 20_000);
    const onData = (chunk) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        // Keep draining output so a chatty child never blocks on a full pipe.
        resolve({ child, match, output: () => seen });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      reject(new Error(`${name} exited with ${code}: ${seen}`));
      if (!stopping)
        console.error(
          `scale-test: ${name} exited (code ${code}, signal ${signal}); last output:\n${seen.slice(-2000)}`,
        );
    });
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function rssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) / 1024;
}

const openFds = (pid) => readdirSync(`/proc/${pid}/fd`).length;

/** CPU time the process has used (user + system), in ms: unlike wall time, not inflated by a loaded machine. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in ticks of 1/100 s
}

async function scrape(origin) {
  if (FLOOR) return { heapUsedMiB: Number.NaN, inFlight: Number.NaN, lagP99Ms: Number.NaN };
  const response = await request(`${origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  const text = await response.body.text();
  const value = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return {
    heapUsedMiB: value('nodejs_heap_size_used_bytes') / 2 ** 20,
    inFlight: value('switchyard_requests_in_flight'),
    lagP99Ms: value('nodejs_eventloop_lag_p99_seconds') * 1000,
  };
}

/**
 * Live heap and array buffers (Buffers' native memory, outside the heap) after a full
 * collection, in MiB, read over the inspector (blocks the process for the collection).
 */
async function liveMemory(inspectorUrl) {
  const socket = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  const pending = new Map();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    pending.get(message.id)?.(message);
  };
  let nextId = 0;
  const call = (method, params) =>
    new Promise((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await call('HeapProfiler.collectGarbage');
  await call('HeapProfiler.collectGarbage');
  const usage = await call('Runtime.getHeapUsage');
  const arrayBuffers = await call('Runtime.evaluate', {
    expression: 'process.memoryUsage().arrayBuffers',
    returnByValue: true,
  });
  socket.close();
  return { heapMiB: usage.result.usedSize / 2 ** 20, arrayBuffersMiB: arrayBuffers.result.result.value / 2 ** 20 };
}

let snapshots = 0;
/** Has the gateway write a heap snapshot (`--heap-snapshot` only) and waits until it is complete. */
async function heapSnapshot(pid) {
  if (!SNAPSHOT_DIR) return;
  snapshots++;
  process.kill(pid, 'SIGUSR2');
  let sizes = [];
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const files = readdirSync(SNAPSHOT_DIR).filter((name) => name.endsWith('.heapsnapshot'));
    const next = files.map((name) => statSync(join(SNAPSHOT_DIR, name)).size);
    if (files.length === snapshots && next.join() === sizes.join() && next.every((size) => size > 0)) break;
    sizes = next;
  }
  console.log(`heap snapshot ${snapshots} written in ${SNAPSHOT_DIR}`);
}

const node = await startChild(
  ['dist/cli.js', 'simulate', '--port', '0', '--tokens-per-second', String(TOKENS_PER_SECOND)],
  /listening on (http:\/\/\S+)/,
  'simulated node',
);
const config = join(mkdtempSync(join(tmpdir(), 'switchyard-scale-')), 'scale.yaml');
writeFileSync(
  config,
  `listen: { host: 127.0.0.1, port: 0 }
admin_key: ${ADMIN_KEY}
store: memory
log_level: ${process.env.SCALE_LOG_LEVEL ?? 'warn'}
http: { max_connections: ${STREAMS + 100}, listen_backlog: 4096 }
timeouts: { first_byte_ms: 600000, idle_ms: 600000, total_ms: 3600000 }
nodes:
  - { id: slow, provider: openai, base_url: "${node.match[1]}", max_concurrency: ${STREAMS + 10} }
models:
  - { id: slow-model, reasoning: { default_effort: medium }, routes: [{ node: slow }] }
limits: { key: { rpm: 100000000 }, ip: { rpm: 100000000 } }
keys: [{ key: ${KEY} }]
`,
);
const INSPECT = '--inspect=127.0.0.1:0';
// Extra node flags for the gateway (e.g. SCALE_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof").
const NODE_FLAGS = (process.env.SCALE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const SNAPSHOT_FLAGS = SNAPSHOT_DIR ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${SNAPSHOT_DIR}`] : [];
const gateway = FLOOR
  ? await startChild(
      [INSPECT, ...NODE_FLAGS, ...SNAPSHOT_FLAGS, 'bench/floor-forwarder.mjs'],
      /floor listening on (http:\/\/\S+)/,
      'floor forwarder',
      {
        ...process.env,
        BENCH_GATEWAY_PORT: String(await freePort()),
        BENCH_UPSTREAM_BASE_URL: node.match[1],
        BENCH_FLOOR_CONNECTIONS: String(STREAMS + 10),
      },
    )
  : await startChild(
      [INSPECT, ...NODE_FLAGS, ...SNAPSHOT_FLAGS, 'dist/cli.js', 'serve', '--config', config],
      /listening on (http:\/\/\S+)\/v1/,
      'gateway',
    );
const origin = gateway.match[1].replace(/\/v1$/, '');
const inspectorUrl = /Debugger listening on (ws:\/\/\S+)/.exec(gateway.output())?.[1];
if (!inspectorUrl) fail(`no inspector address in the gateway's output: ${gateway.output().slice(0, 500)}`);
const pid = gateway.child.pid;
const stop = () => {
  stopping = true;
  // SIGTERM lets a --cpu-prof gateway write its profile; the node is killed at once.
  gateway.child.kill(NODE_FLAGS.length > 0 ? 'SIGTERM' : 'SIGKILL');
  node.child.kill('SIGKILL');
};
process.on('exit', stop);

const agent = new Agent({
  connections: null,
  pipelining: 1,
  keepAliveTimeout: 1_000,
  headersTimeout: 0,
  bodyTimeout: 0,
  connect: { timeout: 60_000 },
});
const body = JSON.stringify({
  model: 'slow-model',
  stream: true,
  max_tokens: MAX_TOKENS,
  // The gateway adds the model's default effort; the floor forwards the body as it is.
  ...(FLOOR ? { reasoning_effort: 'medium' } : {}),
  messages: [
    { role: 'user', content: `Keep the line open.${' filler'.repeat(Number(values['prompt-characters']) / 7)}` },
  ],
});

async function oneStream(stats) {
  let streaming = false;
  try {
    const response = await request(`${origin}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body,
    });
    if (response.statusCode !== 200) {
      stats.errors.push(`status ${response.statusCode}: ${(await response.body.text()).slice(0, 200)}`);
      return;
    }
    let first = true;
    let tail = '';
    for await (const chunk of response.body) {
      stats.chunks++;
      if (first) {
        first = false;
        streaming = true;
        stats.started++;
        stats.streaming++;
      }
      tail = (tail + chunk.toString()).slice(-400);
    }
    if (tail.includes('"error"') || !tail.includes('data: [DONE]')) stats.errors.push(`bad end: ${tail.slice(-200)}`);
    else stats.done++;
  } catch (error) {
    stats.errors.push(String(error?.code ?? error));
  } finally {
    if (streaming) stats.streaming--;
  }
}

// Warm up, then the baseline.
for (let index = 0; index < 20; index++) {
  const response = await request(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: 'slow-model', max_tokens: 2, messages: [{ role: 'user', content: 'warm' }] }),
  });
  await response.body.text();
}
global.gc?.();
await new Promise((resolve) => setTimeout(resolve, 1000));
const baselineLive = await liveMemory(inspectorUrl);
const baselineLiveHeap = baselineLive.heapMiB;
await heapSnapshot(pid);
await new Promise((resolve) => setTimeout(resolve, 500));
const baseline = { rss: rssMiB(pid), ...(await scrape(origin)), fds: openFds(pid) };
console.log(
  `baseline: rss ${baseline.rss.toFixed(1)} MiB, heap ${baseline.heapUsedMiB.toFixed(1)} MiB, live heap after a full collection ${baselineLiveHeap.toFixed(1)} MiB, ${baseline.fds} fds`,
);

const stats = { launched: 0, started: 0, streaming: 0, chunks: 0, done: 0, errors: [] };
// Streams held: those with their first chunk and not yet ended (a request still queued holds little).
const held = () => stats.streaming;
// RSS at the most streams held at once.
// The highest RSS while that many were held, until the forced collection at the plateau (which shrinks RSS).
let mostHeld = { held: 0, rss: 0 };
let collected = false;
let peakRss = 0;
const sampler = setInterval(() => {
  const rss = rssMiB(pid);
  peakRss = Math.max(peakRss, rss);
  const now = held();
  if (!collected && (now > mostHeld.held || (now === mostHeld.held && rss > mostHeld.rss)))
    mostHeld = { held: now, rss, done: stats.done };
}, 250);
const started = Date.now();
const cpuBefore = cpuMs(pid);
const streams = [];
for (let index = 0; index < STREAMS; index++) {
  stats.launched++;
  streams.push(oneStream(stats));
  if (index % 250 === 249) await new Promise((resolve) => setTimeout(resolve, (250 / RAMP_PER_SECOND) * 1000));
}
const openingCpu = cpuMs(pid) - cpuBefore;
const openingChunks = stats.chunks;
console.log(
  `opened ${STREAMS} streams in ${((Date.now() - started) / 1000).toFixed(1)} s; gateway CPU meanwhile ${openingCpu.toFixed(0)} ms, ${((openingCpu / STREAMS) * 1000).toFixed(0)} µs per stream opened (with relaying those already open)`,
);

// Plateau: every stream has its first chunk (those opened first may have ended since).
while (stats.started + stats.errors.length < STREAMS) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (Date.now() - started > 300_000) break;
}
const plateau = { rss: rssMiB(pid), ...(await scrape(origin)), fds: openFds(pid), at: (Date.now() - started) / 1000 };
const plateauCpu = { cpu: cpuMs(pid), chunks: stats.chunks };
console.log(
  `plateau at ${plateau.at.toFixed(1)} s: ${stats.started} streaming, ${stats.done} done, ${stats.errors.length} errors; ` +
    `gateway in flight ${plateau.inFlight}, rss ${plateau.rss.toFixed(1)} MiB, heap ${plateau.heapUsedMiB.toFixed(1)} MiB, ${plateau.fds} fds, event-loop lag p99 ${plateau.lagP99Ms.toFixed(1)} ms`,
);
// After the figures (the full collection stalls the loop, so it comes after their scrape).
while (Date.now() - started < Number(values['measure-at']) * 1000)
  await new Promise((resolve) => setTimeout(resolve, 100));
const plateauHeld = { held: held(), done: stats.done, at: (Date.now() - started) / 1000 };
// A stream's start, apart from relaying: the CPU of a chunk relayed is read between the plateau
// and now (no stream starting), and taken off the opening's CPU for the chunks relayed then.
if (plateauHeld.done === 0 && stats.chunks - plateauCpu.chunks > 1000) {
  const perChunk = (cpuMs(pid) - plateauCpu.cpu) / (stats.chunks - plateauCpu.chunks);
  const perStart = (openingCpu - perChunk * openingChunks) / STREAMS;
  console.log(
    `CPU per chunk relayed ${(perChunk * 1000).toFixed(0)} µs (${stats.chunks - plateauCpu.chunks} chunks after the plateau); per stream started, relaying taken off, ${(perStart * 1000).toFixed(0)} µs: ${(perStart * 250).toFixed(0)} ms for a burst of 250`,
  );
}
collected = true;
const plateauLive = await liveMemory(inspectorUrl);
const plateauLiveHeap = plateauLive.heapMiB;
await heapSnapshot(pid);
await scrape(origin); // restarts the lag histogram after the collection's stall
console.log(
  `live heap after a full collection at ${plateauHeld.at.toFixed(1)} s: ${plateauLiveHeap.toFixed(1)} MiB with ${plateauHeld.held} streams held, ${plateauHeld.done} ended`,
);

await Promise.all(streams);
clearInterval(sampler);
const elapsed = (Date.now() - started) / 1000;
const after = await scrape(origin);
// Idle connections to the node close after their keep-alive: wait for them, so that what an ended stream leaves is what stays.
for (let waited = 0; waited < 15_000 && openFds(pid) > baseline.fds + 5; waited += 500)
  await new Promise((resolve) => setTimeout(resolve, 500));
const afterLiveHeap = (await liveMemory(inspectorUrl)).heapMiB;
const active = plateau.inFlight - 1; // the scrape itself is in flight
const perStream = (field) => (((plateau[field] - baseline[field]) * 1024) / active).toFixed(1);
console.log(
  `finished in ${elapsed.toFixed(1)} s: ${stats.done} completed, ${stats.errors.length} errors, peak rss ${peakRss.toFixed(1)} MiB, lag p99 after ${after.lagP99Ms.toFixed(1)} ms, live heap after a full collection ${afterLiveHeap.toFixed(1)} MiB`,
);
console.log(
  `memory per stream at the plateau (${active} streams; the issue's figure): rss ${perStream('rss')} KiB, heap ${perStream('heapUsedMiB')} KiB`,
);
console.log(
  `rss per stream at the most held at once (${mostHeld.held} streams, ${mostHeld.done} ended): ${(((mostHeld.rss - baseline.rss) * 1024) / mostHeld.held).toFixed(1)} KiB`,
);
// What an ended stream leaves on the live heap (its record, kept by the memory store), then
// what a held stream holds: the plateau's live heap less the ended streams' share.
const leftPerEnded = (afterLiveHeap - baselineLiveHeap) / Math.max(1, stats.done);
const livePerHeld = (plateauLiveHeap - baselineLiveHeap - leftPerEnded * plateauHeld.done) / plateauHeld.held;
console.log(
  `live heap per held stream: ${(livePerHeld * 1024).toFixed(1)} KiB (an ended stream leaves ${(leftPerEnded * 1024).toFixed(1)} KiB)`,
);
// Buffers' memory is outside the live heap (and in RSS): what a held stream keeps of it, its
// request body for one, after the same full collections.
const arrayBuffersPerHeld = (plateauLive.arrayBuffersMiB - baselineLive.arrayBuffersMiB) / plateauHeld.held;
console.log(`array buffers per held stream, after a full collection: ${(arrayBuffersPerHeld * 1024).toFixed(1)} KiB`);
if (stats.errors.length > 0) {
  const kinds = new Map();
  for (const error of stats.errors) kinds.set(error, (kinds.get(error) ?? 0) + 1);
  console.log('errors:', [...kinds].slice(0, 10));
}
await agent.close();
if (process.env.SCALE_LOG_FILE) writeFileSync(process.env.SCALE_LOG_FILE, gateway.output());
stop();
process.exit(stats.errors.length === 0 && stats.done === STREAMS ? 0 : 1);
