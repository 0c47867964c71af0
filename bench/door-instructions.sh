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
cleanup() { for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || true; done; [[ -n ${KEEP_LOG:-} ]] && cat "$WORK"/gateway.*.log >"$KEEP_LOG"; rm -rf "$WORK"; }
trap cleanup EXIT
setsid node "$ROOT/bench/front-door-mock.mjs" "$MOCK_PORT" "$KIT/mock/fixtures" >/dev/null 2>&1 &
pids+=($!)
instructions() {
  local n=$1 out="$WORK/callgrind.$1"
  local program=("$DIST/cli.js" serve --config "$ROOT/bench/front-doors/config.yaml")
  [[ $DIST == floor ]] && program=("$ROOT/bench/floor-forwarder.mjs")
  BENCH_GATEWAY_PORT=$PORT BENCH_MOCK_URL=http://127.0.0.1:$MOCK_PORT BENCH_UPSTREAM_BASE_URL=http://127.0.0.1:$MOCK_PORT/v1 \
    valgrind --tool=callgrind --callgrind-out-file="$out" \
    node --single-threaded ${GATEWAY_NODE_FLAGS:-} "${program[@]}" >"$WORK/gateway.$n.log" 2>&1 &
  local gateway=$!
  for _ in $(seq 900); do curl -s -o /dev/null http://127.0.0.1:$PORT/v1/models -H "authorization: Bearer $KEY" && break; sleep 0.2; done
  node "$ROOT/bench/lib/post-requests.mjs" "http://127.0.0.1:$PORT${PATHS[$DOOR]}" \
    "$ROOT/bench/front-doors/$DOOR-$MODE.json" "$n" 16 "$KEY"
  kill -INT $gateway; wait $gateway || true
  grep -oE '^summary: [0-9]+' "$out" | grep -oE '[0-9]+'
}
first=$(instructions "$N1")
second=$(instructions "$N2")
echo "$MODE $DOOR (${PATHS[$DOOR]}), $(basename "$DIST"): $(( (second - first) / (N2 - N1) )) instructions per request"
