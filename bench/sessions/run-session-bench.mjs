// `npm run bench:sessions`: agent sessions through two gateway instances behind nginx
// round-robin onto four simulated nodes with prefix caches, once per affinity mode, then
// once more (affinity `session`) with one node killed mid-run. Prints a Markdown table
// (the one in docs/performance.md) and writes every figure as JSON beside the logs.
// Sizes and knobs: the BENCH_* variables below; every run is bounded (BENCH_RUN_DEADLINE_S)
// and every process it starts is stopped at its end. The defaults are a coding agent's
// session (a 6,000-token shared system prompt, a 320-token task, then per turn a short tool
// call and a tool result: 40 % file reads of 2,000-8,000 tokens, the rest 120-1,500; ~37,000
// tokens by the 12th turn) scaled down 8× in tokens, with each uncached token 8× dearer
// (0.05 → 0.4 ms), so the first-token delays are those of the full shape while two cores
// can push the bytes. Each node's cache (150,000 tokens, 1.2 M at full scale) holds ~1.3×
// its share of the sessions' peak working set under affinity, a third of what every node
// would need without it (the summary prints the working set).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSessions } from './agent-sessions.mjs';
import { startCluster } from './cluster.mjs';
import { peakWorkingSet, placementEffect, readRequestLines, summarizeKill, summarizeRun } from './summarize.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const number = (name, fallback) => Number(process.env[name] ?? fallback);

const sizes = {
  sessions: number('BENCH_SESSIONS', 200),
  turns: number('BENCH_TURNS', 12),
  systemTokens: number('BENCH_SYSTEM_TOKENS', 750),
  taskTokens: number('BENCH_TASK_TOKENS', 40),
  toolTokens: {
    small: [number('BENCH_TOOL_SMALL_MIN', 15), number('BENCH_TOOL_SMALL_MAX', 190)],
    large: [number('BENCH_TOOL_LARGE_MIN', 250), number('BENCH_TOOL_LARGE_MAX', 1000)],
    largeShare: number('BENCH_TOOL_LARGE_SHARE', 0.4),
  },
  startSpreadMs: number('BENCH_START_SPREAD_MS', 20_000),
  thinkMs: [number('BENCH_THINK_MIN_MS', 1000), number('BENCH_THINK_MAX_MS', 3000)],
  deadlineMs: number('BENCH_RUN_DEADLINE_S', 240) * 1000,
};
const node = {
  firstByteMs: number('BENCH_NODE_FIRST_BYTE_MS', 20),
  prefillMsPerToken: number('BENCH_NODE_PREFILL_MS_PER_TOKEN', 0.4),
  cacheTokens: number('BENCH_NODE_CACHE_TOKENS', 150_000),
  maxNumSeqs: number('BENCH_NODE_MAX_NUM_SEQS', 64),
};
const NODES = 4;
const GATEWAYS = 2;
const modes = (process.env.BENCH_MODES ?? 'none session prefix').split(/\s+/).filter(Boolean);
const killRun = process.env.BENCH_KILL !== '0';
/** The model's routing lines for a mode; BENCH_ROUTING overrides (`{mode}` is replaced). */
const routingFor = (mode) =>
  (
    process.env.BENCH_ROUTING ??
    `routing: { affinity: {mode}${process.env.BENCH_LOAD_FACTOR ? `, affinity_load_factor: ${process.env.BENCH_LOAD_FACTOR}` : ''} }`
  )
    .split('\n')
    .map((line) => line.replaceAll('{mode}', mode));
/** YAML members added to every node entry, e.g. the node's metrics endpoint (`{port}`: its port). */
const nodeExtra = process.env.BENCH_NODE_EXTRA ?? '';

const simulateArgs = [
  '--first-byte-ms',
  String(node.firstByteMs),
  '--prefill-ms-per-token',
  String(node.prefillMsPerToken),
  '--prefix-cache-tokens',
  String(node.cacheTokens),
  '--max-num-seqs',
  String(node.maxNumSeqs),
];
const workRoot = mkdtempSync(join(tmpdir(), 'switchyard-session-bench-'));
const nodeIds = Array.from({ length: NODES }, (_, index) => `node-${index + 1}`);

async function run(mode, kill) {
  const name = kill ? `${mode}+kill` : mode;
  const workDir = join(workRoot, name);
  const cluster = await startCluster({
    root,
    workDir,
    nodeCount: NODES,
    gateways: GATEWAYS,
    simulateArgs,
    routing: routingFor(mode),
    nodeExtra,
  });
  const expected = sizes.sessions * sizes.turns;
  let done = 0;
  let killedAt;
  const killedNode = process.env.BENCH_KILL_NODE ?? 'node-2';
  const began = Date.now();
  const loadAtStart = loadavg()[0];
  const clientCpu = process.cpuUsage();
  try {
    const records = await runSessions({
      ...sizes,
      baseUrl: cluster.baseUrl,
      sessionHeader: mode !== 'prefix',
      onRequest: () => {
        done++;
        if (kill && killedAt === undefined && done >= expected * 0.4) {
          killedAt = Date.now();
          cluster.kill(killedNode);
        }
      },
    });
    const seconds = (Date.now() - began) / 1000;
    // The gateways write a request's line when its response closes: let the last ones land.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const lines = readRequestLines(cluster.instances.map((instance) => instance.logFile));
    const client = process.cpuUsage(clientCpu);
    const cpu = { ...cluster.cpu(), client: (client.user + client.system) / 1e6 };
    const load = { begin: loadAtStart, end: loadavg()[0] };
    const workingSet = peakWorkingSet(records);
    const summary = { name, seconds, cpu, load, workingSet, ...summarizeRun(records, lines, nodeIds, node) };
    summary.placement = placementEffect(records, sizes.systemTokens);
    if (kill) summary.kill = { node: killedNode, ...summarizeKill(records, killedNode, killedAt, node) };
    writeFileSync(join(workDir, 'records.json'), JSON.stringify(records));
    return summary;
  } finally {
    await cluster.stop();
  }
}

const fmt = (value, digits = 0) => (value === undefined ? 'n/a' : value.toFixed(digits));
const percent = (value) => `${(value * 100).toFixed(1)} %`;

console.error(
  `session bench: ${sizes.sessions} sessions × ${sizes.turns} turns, system ${sizes.systemTokens} + task ${sizes.taskTokens} tokens, ` +
    `tool results ${sizes.toolTokens.small.join('-')} tokens or ${Math.round(sizes.toolTokens.largeShare * 100)} % ` +
    `${sizes.toolTokens.large.join('-')}; ${NODES} nodes (cache ${node.cacheTokens} tokens, ` +
    `${node.firstByteMs} ms + ${node.prefillMsPerToken} ms/uncached token, max_num_seqs ${node.maxNumSeqs}), ` +
    `${GATEWAYS} gateways behind nginx; logs in ${workRoot}`,
);
const results = [];
for (const mode of modes) {
  results.push(await run(mode, false));
  console.error(JSON.stringify(results.at(-1)));
}
if (killRun) {
  results.push(await run(process.env.BENCH_KILL_MODE ?? 'session', true));
  console.error(JSON.stringify(results.at(-1)));
}
writeFileSync(join(workRoot, 'summary.json'), JSON.stringify({ sizes, node, results }, null, 2));

console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}\n`);
console.log(
  '| run | requests | failed | hit ratio | first token p50 / p95 (client) | (node schedule) | busiest / mean: requests | prompt tokens | affinity hit / spill / none | s | load average (1 min) begin / end | peak working set: tokens (sessions) | ideal hit ratio | later turns on their previous node: share, hit ratio | moved: hit ratio |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const result of results) {
  const affinity = ['hit', 'spill', 'none'].map((key) => result.affinity[key] ?? 0).join(' / ');
  console.log(
    `| ${result.name} | ${result.requests} | ${result.failed} | ${percent(result.hitRatio)} | ` +
      `${fmt(result.ttftP50)} / ${fmt(result.ttftP95)} ms | ${fmt(result.scheduledP50)} / ${fmt(result.scheduledP95)} ms | ` +
      `${fmt(result.busiestRequests, 2)} | ${fmt(result.busiestTokens, 2)} | ${affinity} | ${fmt(result.seconds)} | ` +
      `${fmt(result.load.begin, 1)} / ${fmt(result.load.end, 1)} | ${result.workingSet.tokens} (${result.workingSet.sessions}) | ` +
      `${percent(result.placement.idealHitRatio)} | ` +
      `${percent(result.placement.sameNode.requests / Math.max(1, result.placement.sameNode.requests + result.placement.moved.requests))}, ` +
      `${percent(result.placement.sameNode.hitRatio)} | ${percent(result.placement.moved.hitRatio)} |`,
  );
}
const killed = results.find((result) => result.kill !== undefined);
if (killed) {
  console.log(
    `\n${killed.kill.node} killed after 40 % of the requests: ${killed.failed} failed, ${killed.failovers} failed over; ` +
      `${killed.kill.movedSessions} sessions moved. Their turns after the kill:\n`,
  );
  console.log('| turn after the kill | sessions | hit ratio | first token p50 (client) | (node schedule) |');
  console.log('|---|---|---|---|---|');
  for (const turn of killed.kill.perTurn) {
    console.log(
      `| ${turn.turnAfterKill} | ${turn.sessions} | ${percent(turn.hitRatio)} | ${fmt(turn.ttftP50)} ms | ${fmt(turn.scheduledP50)} ms |`,
    );
  }
}
