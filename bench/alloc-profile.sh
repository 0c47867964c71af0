#!/usr/bin/env bash
# Bytes the gateway allocates per request, by function, under the kit's load:
#   bash bench/alloc-profile.sh json|sse [DIST_DIR] [SECONDS]
# The gateway (core 0) behind the kit's nginx mock, wrk (core 1); after 3 s of warm-up,
# V8's sampling heap profiler runs for SECONDS (default 4) counting every allocation,
# collected or not. Unlike CPU time on this VM, the figures repeat from run to run, so a
# change's effect on allocation (and with it on garbage collection) shows directly.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIT="${BENCH_KIT:-$ROOT/../shared/bench}"
MODE=${1:-json} DIST=${2:-$ROOT/dist} SECS=${3:-4}
PORT_UP=18101; STREAM=0
[[ $MODE == sse ]] && { PORT_UP=18102; STREAM=1; }
WORK=$(mktemp -d); mkdir -p "$WORK/nginx-tmp"
node "$KIT/lib/render-nginx.mjs" "$KIT/nginx/mock.conf.tmpl" "$WORK/nginx.conf" "RUN_DIR=$WORK" PORT_JSON=18101 PORT_SSE=18102
taskset -c 1 nginx -p "$WORK" -c "$WORK/nginx.conf"
ALLOC_PROFILE="$WORK/allocations.json" BENCH_GATEWAY_PORT=18130 BENCH_UPSTREAM_BASE_URL=http://127.0.0.1:$PORT_UP/v1 \
  taskset -c 0 node --import "$ROOT/bench/lib/sample-allocations.mjs" "$DIST/cli.js" serve --config "$ROOT/bench/bench-config.yaml" >/dev/null 2>&1 &
GATEWAY=$!
trap 'kill $GATEWAY 2>/dev/null || true; nginx -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true' EXIT
load() { BENCH_STREAM=$STREAM taskset -c 1 wrk -t1 -c64 -d"$1" -s "$KIT/wrk/chat.lua" http://127.0.0.1:18130/v1/chat/completions; }
for _ in $(seq 100); do curl -sf -o /dev/null http://127.0.0.1:18130/healthz && break; sleep 0.1; done
load 3s >/dev/null
kill -USR2 $GATEWAY
REQUESTS=$(load "${SECS}s" | grep -oE '[0-9]+ requests in' | grep -oE '^[0-9]+')
kill -USR2 $GATEWAY
for _ in $(seq 50); do [[ -s $WORK/allocations.json ]] && break; sleep 0.1; done
node --input-type=module - "$WORK/allocations.json" "$REQUESTS" <<'SUMMARY'
const { readFileSync } = await import('node:fs');
const [file, requests] = process.argv.slice(2);
const bytes = new Map();
let total = 0;
(function walk(node) {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`;
  const size = node.selfSize + (node.samples ?? []).reduce((sum, sample) => sum + sample.size, 0);
  bytes.set(where, (bytes.get(where) ?? 0) + size);
  total += size;
  for (const child of node.children ?? []) walk(child);
})(JSON.parse(readFileSync(file, 'utf8')).head);
console.log(`${requests} requests; ${Math.round(total / requests)} bytes allocated per request (sampled), by function:`);
for (const [where, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${String(Math.round(size / requests)).padStart(7)}  ${where}`);
SUMMARY
