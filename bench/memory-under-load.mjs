#!/usr/bin/env node
// Memory of one gateway process: starts it, times startup to the first 200, then drives
// chat completions at a fixed concurrency and samples its RSS from /proc every 200 ms.
//
//   node bench/memory-under-load.mjs [--requests 60000] [--concurrency 64] [--phases json,stream]
//     [--url http://127.0.0.1:18410/v1] [--key sk-…] [--body FILE] [--model M] [--probe chat|models]
//     [--admin-key K] -- <gateway command…>
//
// The gateway command is spawned without a shell (so its pid is the one sampled); its
// output goes to --log (default /dev/null). Prints one JSON object: startup_ms (spawn →
// first 200 of the probe: a chat completion, or GET /v1/models), idle (RSS 2 s after that
// first 200), and per phase the sampled peak, the kernel's high-water mark (VmHWM) and RSS
// 2 s after the phase. RSS in MiB; with --admin-key (the configuration's admin_key) also
// V8's used heap, from GET /metrics.
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

const separator = process.argv.indexOf('--');
if (separator < 0) throw new Error('usage: memory-under-load.mjs [options] -- <gateway command…>');
const { values } = parseArgs({
  args: process.argv.slice(2, separator),
  options: {
    requests: { type: 'string', default: '60000' },
    concurrency: { type: 'string', default: '64' },
    phases: { type: 'string', default: 'json,stream' },
    url: { type: 'string', default: 'http://127.0.0.1:18410/v1' },
    key: { type: 'string', default: 'sk-bench-0123456789abcdef0123456789abcdef' },
    body: { type: 'string', default: '/work/shared/bench/mock/fixtures/request.json' },
    model: { type: 'string' },
    log: { type: 'string', default: '/dev/null' },
    probe: { type: 'string', default: 'chat' },
    'admin-key': { type: 'string' },
  },
});
const [command, ...commandArgs] = process.argv.slice(separator + 1);
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
const base = JSON.parse(readFileSync(values.body, 'utf8'));
if (values.model !== undefined) base.model = values.model;
const bodies = { json: JSON.stringify(base), stream: JSON.stringify({ ...base, stream: true }) };
const url = new URL(values.url);
const path = `${url.pathname.replace(/\/$/, '')}/chat/completions`;
const headers = { authorization: `Bearer ${values.key}`, 'content-type': 'application/json' };

const mib = (kib) => Math.round((kib / 1024) * 10) / 10;
function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

const log = openSync(values.log, 'a');
const started = performance.now();
const gateway = spawn(command, commandArgs, { stdio: ['ignore', log, log] });
let exited = false;
gateway.on('exit', () => (exited = true));
const pool = new Pool(url.origin, { connections: concurrency });

async function send(kind) {
  const response = await pool.request({ method: 'POST', path, headers, body: bodies[kind] });
  await response.body.text();
  return response.statusCode;
}

async function probe() {
  if (values.probe === 'chat') return send('json');
  const response = await pool.request({ method: 'GET', path: `${url.pathname.replace(/\/$/, '')}/models`, headers });
  await response.body.text();
  return response.statusCode;
}

/** V8's used heap as prom-client reports it, in MiB; undefined without an admin key. */
async function heapUsed() {
  if (values['admin-key'] === undefined) return undefined;
  try {
    const response = await pool.request({
      method: 'GET',
      path: '/metrics',
      headers: { authorization: `Bearer ${values['admin-key']}` },
    });
    const text = await response.body.text();
    const bytes = /^nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1];
    return bytes === undefined ? undefined : mib(Number(bytes) / 1024);
  } catch {
    return undefined;
  }
}

async function firstOk() {
  for (;;) {
    if (exited) throw new Error('the gateway exited before answering');
    const code = await probe().catch(() => 0);
    if (code === 200) return performance.now() - started;
    await sleep(10);
  }
}

async function phase(kind) {
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, status(gateway.pid).rss)), 200);
  const statuses = new Map();
  let next = 0;
  const phaseStarted = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        next++;
        const code = await send(kind).catch(() => 0);
        statuses.set(code, (statuses.get(code) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - phaseStarted) / 1000;
  clearInterval(sampler);
  const { rss, hwm } = status(gateway.pid);
  peak = Math.max(peak, rss);
  await sleep(2000);
  const after = status(gateway.pid).rss;
  return {
    phase: kind,
    requests,
    statuses: Object.fromEntries(statuses),
    requests_per_second: Math.round(requests / seconds),
    peak_sampled_mib: mib(peak),
    hwm_mib: mib(hwm),
    after_2s_mib: mib(after),
    heap_used_mib: await heapUsed(),
  };
}

try {
  const startupMs = Math.round(await firstOk());
  await sleep(2000);
  const idle = mib(status(gateway.pid).rss);
  const report = {
    command: [command, ...commandArgs].join(' '),
    startup_ms: startupMs,
    idle_mib: idle,
    idle_heap_used_mib: await heapUsed(),
    phases: [],
  };
  for (const kind of values.phases.split(',').filter(Boolean)) report.phases.push(await phase(kind));
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await pool.close();
  if (!exited) {
    const gone = once(gateway, 'exit');
    gateway.kill('SIGTERM');
    await gone;
  }
}
