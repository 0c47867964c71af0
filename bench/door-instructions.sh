#!/usr/bin/env bash
# Instructions per request of one front door on its native path, counted by valgrind's
# callgrind rather than timed: the same count for the same build whatever else the machine
# runs, so two builds (or two doors) compare on a noisy VM where bench/front-doors.sh's CPU
# times swing by 2x between minutes.
#   bash bench/door-instructions.sh chat|messages|responses json|sse [DIST_DIR] [N1 N2]
# Runs the gateway (bench/front-doors/config.yaml, node --single-threaded so no compiler or
# GC thread runs at a varying pace) under callgrind twice, serving N1 (default 1200) and then
# N2 (default 3200) requests 16 at a time from bench/front-door-mock.mjs; (I2 - I1)/(N2 - N1)
# is the steady cost of one request, startup and warm-up cancelled out. About ±1 % from run
# to run. Takes a few minutes; needs valgrind. Uses ports DOOR_PORT and DOOR_PORT+1 (default
# 18150-18151), so counts on other ports can run side by side. GATEWAY_NODE_FLAGS
# (space separated) go to node before the gateway, e.g. `--allocation-site-pretenuring`.
# DOOR_ONE_RUN=1 counts in one gateway run instead (dumps after N1 and after N2 requests).
# KEEP_CALLGRIND=FILE keeps the measured dump (DOOR_ONE_RUN) or the N2 run's output, to read
# per function with callgrind_annotate. DOOR_CONFIG: another configuration (an older build refuses fields it does not know).
# DIST_DIR `floor` counts bench/floor-forwarder.mjs instead (chat only: node:http and undici
# forwarding with no gateway work), so a build's count less the floor's is the gateway's own.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIT="${BENCH_KIT:-$ROOT/../shared/bench}"
DOOR=$1 MODE=$2 DIST=${3:-$ROOT/dist} N1=${4:-1200} N2=${5:-3200}
PORT=${DOOR_PORT:-18150} MOCK_PORT=$(( ${DOOR_PORT:-18150} + 1 ))
declare -A PATHS=([chat]=/v1/chat/completions [messages]=/v1/messages [responses]=/v1/responses)
[[ -n ${PATHS[$DOOR]:-} && ($MODE == json || $MODE == sse) ]] || { echo "usage: $0 chat|messages|responses json|sse [DIST_DIR] [N1 N2]" >&2; exit 1; }
KEY=sk-bench-0123456789abcdef0123456789abcdef
WORK=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || true; done; kill "${gateway:-}" 2>/dev/null || true; [[ -n ${KEEP_LOG:-} ]] && cat "$WORK"/*.log >"$KEEP_LOG"; rm -rf "$WORK"; }
trap cleanup EXIT
setsid node "$ROOT/bench/front-door-mock.mjs" "$MOCK_PORT" "$KIT/mock/fixtures" >/dev/null 2>&1 &
pids+=($!)
# Starts the gateway under callgrind (output to $1), waits until it answers; sets $gateway.
start_gateway() {
  local program=("$DIST/cli.js" serve --config "${DOOR_CONFIG:-$ROOT/bench/front-doors/config.yaml}")
  [[ $DIST == floor ]] && program=("$ROOT/bench/floor-forwarder.mjs")
  BENCH_GATEWAY_PORT=$PORT BENCH_MOCK_URL=http://127.0.0.1:$MOCK_PORT BENCH_UPSTREAM_BASE_URL=http://127.0.0.1:$MOCK_PORT/v1 \
    valgrind --tool=callgrind --callgrind-out-file="$1" \
    node --single-threaded ${GATEWAY_NODE_FLAGS:-} "${program[@]}" >"$1.log" 2>&1 &
  gateway=$!
  for _ in $(seq 900); do curl -s -o /dev/null http://127.0.0.1:$PORT/v1/models -H "authorization: Bearer $KEY" && break; sleep 0.2; done
}
post() { node "$ROOT/bench/lib/post-requests.mjs" "http://127.0.0.1:$PORT${PATHS[$DOOR]}" "$ROOT/bench/front-doors/$DOOR-$MODE.json" "$1" 16 "$KEY"; }
summary() { grep -oE '^summary: [0-9]+' "$1" | grep -oE '[0-9]+'; }
instructions() {
  start_gateway "$WORK/callgrind.$1"
  post "$1"
  kill -INT $gateway; wait $gateway || true
  summary "$WORK/callgrind.$1"
}
if [[ -n ${DOOR_ONE_RUN:-} ]]; then
  # One gateway: N1 requests to warm it, a callgrind dump, N2 - N1 requests, a second dump,
  # which holds those requests alone; half the time (one start under callgrind, not two).
  # Under callgrind on a loaded machine a few warm-up requests may answer 503; they only warm.
  start_gateway "$WORK/callgrind"
  post "$N1" || true
  callgrind_control --dump=warm $gateway >/dev/null 2>&1
  post $(( N2 - N1 )) || echo "door-instructions: some measured requests were not 200 (above); the count is of all of them" >&2
  callgrind_control --dump=measured $gateway >/dev/null 2>&1
  kill -INT $gateway; wait $gateway || true
  first=0 second=$(summary "$WORK/callgrind.2")
  [[ -n ${KEEP_CALLGRIND:-} ]] && cp "$WORK/callgrind.2" "$KEEP_CALLGRIND"
else
  first=$(instructions "$N1")
  second=$(instructions "$N2")
  [[ -n ${KEEP_CALLGRIND:-} ]] && cp "$WORK/callgrind.$N2" "$KEEP_CALLGRIND"
fi
echo "$MODE $DOOR (${PATHS[$DOOR]}), $(basename "$DIST"): $(( (second - first) / (N2 - N1) )) instructions per request"
