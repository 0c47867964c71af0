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
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '10000' },
    'tokens-per-second': { type: 'string', default: '1' },
    tokens: { type: 'string', default: '200' },
    'ramp-per-second': { type: 'string', default: '250' },
  },
});
const STREAMS = Number(values.streams);
const TOKENS_PER_SECOND = Number(values['tokens-per-second']);
const MAX_TOKENS = Number(values.tokens);
const RAMP_PER_SECOND = Number(values['ramp-per-second']);
const KEY = 'sk-scale-test-0123456789abcdef';
const ADMIN_KEY = 'admin-scale-test-0123456789abcdef';
const FD_RESERVE = 60;

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
function startChild(args, pattern, name) {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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

function rssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) / 1024;
}

const openFds = (pid) => readdirSync(`/proc/${pid}/fd`).length;

async function scrape(origin) {
  const response = await request(`${origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  const text = await response.body.text();
  const value = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return {
    heapUsedMiB: value('nodejs_heap_size_used_bytes') / 2 ** 20,
    inFlight: value('switchyard_requests_in_flight'),
    lagP99Ms: value('nodejs_eventloop_lag_p99_seconds') * 1000,
  };
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
const gateway = await startChild(
  ['dist/cli.js', 'serve', '--config', config],
  /listening on (http:\/\/\S+)\/v1/,
  'gateway',
);
const origin = gateway.match[1].replace(/\/v1$/, '');
const pid = gateway.child.pid;
const stop = () => {
  stopping = true;
  gateway.child.kill('SIGKILL');
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
  messages: [{ role: 'user', content: 'Keep the line open.' }],
});

async function oneStream(stats) {
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
      if (first) {
        first = false;
        stats.started++;
      }
      tail = (tail + chunk.toString()).slice(-400);
    }
    if (tail.includes('"error"') || !tail.includes('data: [DONE]')) stats.errors.push(`bad end: ${tail.slice(-200)}`);
    else stats.done++;
  } catch (error) {
    stats.errors.push(String(error?.code ?? error));
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
const baseline = { rss: rssMiB(pid), ...(await scrape(origin)), fds: openFds(pid) };
console.log(
  `baseline: rss ${baseline.rss.toFixed(1)} MiB, heap ${baseline.heapUsedMiB.toFixed(1)} MiB, ${baseline.fds} fds`,
);

const stats = { started: 0, done: 0, errors: [] };
const started = Date.now();
const streams = [];
for (let index = 0; index < STREAMS; index++) {
  streams.push(oneStream(stats));
  if (index % 250 === 249) await new Promise((resolve) => setTimeout(resolve, (250 / RAMP_PER_SECOND) * 1000));
}
console.log(`opened ${STREAMS} streams in ${((Date.now() - started) / 1000).toFixed(1)} s`);

// Plateau: every stream has its first chunk and is still running.
let peak = { rss: 0 };
while (stats.started + stats.errors.length < STREAMS) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (Date.now() - started > 300_000) break;
}
const plateau = { rss: rssMiB(pid), ...(await scrape(origin)), fds: openFds(pid), at: (Date.now() - started) / 1000 };
peak = plateau;
console.log(
  `plateau at ${plateau.at.toFixed(1)} s: ${stats.started} streaming, ${stats.done} done, ${stats.errors.length} errors; ` +
    `gateway in flight ${plateau.inFlight}, rss ${plateau.rss.toFixed(1)} MiB, heap ${plateau.heapUsedMiB.toFixed(1)} MiB, ${plateau.fds} fds, event-loop lag p99 ${plateau.lagP99Ms.toFixed(1)} ms`,
);
const sampler = setInterval(() => {
  const rss = rssMiB(pid);
  if (rss > peak.rss) peak = { ...peak, rss };
}, 500);

await Promise.all(streams);
clearInterval(sampler);
const elapsed = (Date.now() - started) / 1000;
const after = await scrape(origin);
const active = plateau.inFlight - 1; // the scrape itself is in flight
const perStream = (field) => (((plateau[field] - baseline[field]) * 1024) / active).toFixed(1);
console.log(
  `finished in ${elapsed.toFixed(1)} s: ${stats.done} completed, ${stats.errors.length} errors, peak rss ${peak.rss.toFixed(1)} MiB, lag p99 after ${after.lagP99Ms.toFixed(1)} ms`,
);
console.log(
  `memory per stream at the plateau (${active} streams): rss ${perStream('rss')} KiB, heap ${perStream('heapUsedMiB')} KiB`,
);
if (stats.errors.length > 0) {
  const kinds = new Map();
  for (const error of stats.errors) kinds.set(error, (kinds.get(error) ?? 0) + 1);
  console.log('errors:', [...kinds].slice(0, 10));
}
await agent.close();
if (process.env.SCALE_LOG_FILE) writeFileSync(process.env.SCALE_LOG_FILE, gateway.output());
stop();
process.exit(stats.errors.length === 0 && stats.done === STREAMS ? 0 : 1);
