#!/usr/bin/env bash
# CPU profile of the gateway under load: the kit's Node mock upstream (no delay), the
# gateway under --cpu-prof on core 0, wrk with the kit's request script on core 1.
#   bash bench/profile.sh [json|sse] [seconds]      → prints the top frames by self time
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIT="${BENCH_KIT:-$ROOT/../shared/bench}"
MODE="${1:-json}" SECONDS_TO_RUN="${2:-10}"
OUT="$(mktemp -d)"
npm run --silent --prefix "$ROOT" build
MOCK_PORT=18203 MOCK_DELAY_MS=0 taskset -c 1 node "$KIT/mock/delay-mock.mjs" >/dev/null 2>&1 &
MOCK=$!
BENCH_GATEWAY_PORT=18210 BENCH_UPSTREAM_BASE_URL=http://127.0.0.1:18203/v1 \
  taskset -c 0 node --cpu-prof --cpu-prof-dir="$OUT" "$ROOT/dist/cli.js" serve --config "$ROOT/bench/bench-config.yaml" >"$OUT/gateway.log" &
GATEWAY=$!
trap 'kill $MOCK $GATEWAY 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:18210/v1/models && break; sleep 0.2; done
STREAM=0; [[ $MODE == sse ]] && STREAM=1
BENCH_STREAM=$STREAM taskset -c 1 wrk -t1 -c64 -d"${SECONDS_TO_RUN}s" -s "$KIT/wrk/chat.lua" http://127.0.0.1:18210/v1/chat/completions | grep -E 'Requests/sec|Non-2xx' || true
kill -INT $GATEWAY; wait $GATEWAY || true
node "$ROOT/bench/top-frames.mjs" "$OUT"/*.cpuprofile
