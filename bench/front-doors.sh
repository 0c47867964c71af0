#!/usr/bin/env bash
# CPU per request of each front door on its native path, one gateway build, side by side:
#   bash bench/front-doors.sh json|sse SECONDS ROUNDS [DIST_DIR]
# One gateway process (core 0) with bench/front-doors/config.yaml; one mock node
# (bench/front-door-mock.mjs, core 1) that answers Chat Completions, Anthropic Messages
# and OpenAI Responses with the same reply (the kit's 6 reasoning and 12 answer pieces).
# wrk (core 1, the kit's chat.lua with a door's body) loads one door at a time, round
# after round; the gateway's CPU time over each window over the requests served gives
# µs per request. Reported per door: the median over rounds. The chat door is the
# reference the pass-through doors must not cost more than (issues 19 and 20).
# Needs wrk; uses ports 18140-18141.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIT="${BENCH_KIT:-$ROOT/../shared/bench}"
MODE=$1 SECS=$2 ROUNDS=$3 DIST=${4:-$ROOT/dist}
[[ $MODE == json || $MODE == sse ]] || { echo "front-doors: mode is json or sse" >&2; exit 1; }
GATEWAY_PORT=18140 MOCK_PORT=18141
pids=()
cleanup() { for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || true; done; }
trap cleanup EXIT
setsid taskset -c 1 node "$ROOT/bench/front-door-mock.mjs" $MOCK_PORT "$KIT/mock/fixtures" >/dev/null 2>&1 &
pids+=($!)
BENCH_GATEWAY_PORT=$GATEWAY_PORT BENCH_MOCK_URL=http://127.0.0.1:$MOCK_PORT \
  setsid taskset -c 0 node "$DIST/cli.js" serve --config "$ROOT/bench/front-doors/config.yaml" >/dev/null 2>&1 &
gateway=$!
pids+=($gateway)
KEY=sk-bench-0123456789abcdef0123456789abcdef
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$GATEWAY_PORT/v1/models" -H "authorization: Bearer $KEY" && break; sleep 0.1; done
declare -A PATHS=([chat]=/v1/chat/completions [messages]=/v1/messages [responses]=/v1/responses)
DOORS=(chat messages responses)
load() {
  local door=$1 secs=$2
  BENCH_BODY_FILE="$ROOT/bench/front-doors/$door-$MODE.json" BENCH_API_KEY=$KEY \
    BENCH_HEADERS=$'anthropic-version: 2023-06-01\nx-api-key: '"$KEY" \
    taskset -c 1 wrk -t1 -c64 -d"$secs" -s "$KIT/wrk/chat.lua" "http://127.0.0.1:$GATEWAY_PORT${PATHS[$door]}" 2>&1
}
# Each door answers as it should before it is measured: a 200 with its own reply.
for door in "${DOORS[@]}"; do
  status=$(curl -s -o /tmp/front-door-$door.out -w '%{http_code}' "http://127.0.0.1:$GATEWAY_PORT${PATHS[$door]}" \
    -H "authorization: Bearer $KEY" -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' \
    --data-binary "@$ROOT/bench/front-doors/$door-$MODE.json")
  [[ $status == 200 ]] || { echo "front-doors: $door answered $status: $(head -c 300 /tmp/front-door-$door.out)" >&2; exit 1; }
  load "$door" 2s >/dev/null # warm-up
done
declare -A results
for _ in $(seq "$ROUNDS"); do
  for door in "${DOORS[@]}"; do
    before=$(awk '{print $14 + $15}' "/proc/$gateway/stat")
    out=$(load "$door" "${SECS}s")
    after=$(awk '{print $14 + $15}' "/proc/$gateway/stat")
    requests=$(grep -oE '[0-9]+ requests in' <<<"$out" | grep -oE '^[0-9]+')
    if grep -q 'Non-2xx' <<<"$out"; then echo "front-doors: $door had non-2xx answers" >&2; exit 1; fi
    results[$door]+="$(awk -v a="$before" -v b="$after" -v n="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) * 1e6 / hz / n }') "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for door in "${DOORS[@]}"; do
  echo "$MODE $door (${PATHS[$door]}): $(echo "${results[$door]}" | median) µs CPU per request (rounds: ${results[$door]})"
done
