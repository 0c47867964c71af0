#!/usr/bin/env bash
# CPU profile of the gateway under load: the kit's Node mock upstream (no delay), the
# gateway under --cpu-prof on core 0, wrk with the kit's request script on core 1.
#   bash bench/profile.sh [json|sse] [seconds] [DIST_DIR]   → prints the top frames by self time
# Without DIST_DIR it builds and profiles this tree's dist/. The .cpuprofile stays in the
# directory printed last. PROFILE_PORT (default 18203) and PROFILE_PORT+7 are the mock's and
# the gateway's ports; BENCH_CONFIG another configuration (an older build refuses fields it
# does not know).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIT="${BENCH_KIT:-$ROOT/../shared/bench}"
MODE="${1:-json}" SECONDS_TO_RUN="${2:-10}" DIST="${3:-}"
CONFIG=${BENCH_CONFIG:-$ROOT/bench/bench-config.yaml}
MOCK_PORT=${PROFILE_PORT:-18203} GATEWAY_PORT=$(( ${PROFILE_PORT:-18203} + 7 ))
OUT="$(mktemp -d)"
[[ -z $DIST ]] && { npm run --silent --prefix "$ROOT" build; DIST=$ROOT/dist; }
MOCK_PORT=$MOCK_PORT MOCK_DELAY_MS=0 taskset -c 1 node "$KIT/mock/delay-mock.mjs" >/dev/null 2>&1 &
MOCK=$!
BENCH_GATEWAY_PORT=$GATEWAY_PORT BENCH_UPSTREAM_BASE_URL=http://127.0.0.1:$MOCK_PORT/v1 \
  taskset -c 0 node --cpu-prof --cpu-prof-dir="$OUT" "$DIST/cli.js" serve --config "$CONFIG" >"$OUT/gateway.log" &
GATEWAY=$!
trap 'kill $MOCK $GATEWAY 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:$GATEWAY_PORT/v1/models && break; sleep 0.2; done
STREAM=0; [[ $MODE == sse ]] && STREAM=1
BENCH_STREAM=$STREAM taskset -c 1 wrk -t1 -c64 -d"${SECONDS_TO_RUN}s" -s "$KIT/wrk/chat.lua" http://127.0.0.1:$GATEWAY_PORT/v1/chat/completions | grep -E 'Requests/sec|Non-2xx' || true
kill -INT $GATEWAY; wait $GATEWAY || true
node "$ROOT/bench/top-frames.mjs" "$OUT"/*.cpuprofile
echo "profile: $(ls "$OUT"/*.cpuprofile)"
