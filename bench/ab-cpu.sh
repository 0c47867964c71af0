#!/usr/bin/env bash
# CPU per request of several gateway builds, side by side, against the kit's nginx mock:
#   bash bench/ab-cpu.sh json|sse SECONDS ROUNDS name=DIST_DIR[@NODE_FLAGS] [...]
# Every build runs as INST processes (default 1) at once on core 0; wrk (core 1) loads one
# process at a time, round after round, and the process's CPU time over the window gives
# µs per request. Reported per build: the median over its processes of each process's
# median. One Node process can settle up to ~25% apart from another of the same build, so
# INST=3 evens that out, but every process more on the core makes each Switchyard process
# dearer (191 against 159 µs per stream with 3 against 1, the proxy 125 against 106):
# compare builds only within one run. Short alternating windows, because this VM's speed
# drifts between minutes. DIST_DIR may be `proxy` (the kit's minimal proxy) or `floor`
# (bench/floor-forwarder.mjs: node:http + undici and no gateway work). NODE_FLAGS, space
# separated, go to node before a build's cli.js, e.g. `nomet=dist@--env-file=/tmp/switches.env`
# or `semi=dist@--max-semi-space-size=32`.
# Needs wrk and nginx; uses ports 18101-18102 and 18120 up.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIT="${BENCH_KIT:-$ROOT/../shared/bench}"
MODE=$1 SECS=$2 ROUNDS=$3; shift 3
INST=${INST:-1}
# BENCH_CONFIG: another configuration for every build (an older build refuses fields it does not know).
CONFIG=${BENCH_CONFIG:-$ROOT/bench/bench-config.yaml}
PORT_UP=18101; STREAM=0
[[ $MODE == sse ]] && { PORT_UP=18102; STREAM=1; }
WORK=$(mktemp -d); mkdir -p "$WORK/nginx-tmp"
node "$KIT/lib/render-nginx.mjs" "$KIT/nginx/mock.conf.tmpl" "$WORK/nginx.conf" "RUN_DIR=$WORK" PORT_JSON=18101 PORT_SSE=18102
taskset -c 1 nginx -p "$WORK" -c "$WORK/nginx.conf"
pids=(); tags=(); ports=(); names=(); port=18120
cleanup() {
  for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || true; done
  nginx -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true
  # nginx stops after this returns: wait, so that the next run can bind the mock's ports.
  for _ in $(seq 50); do pgrep -x nginx >/dev/null || break; sleep 0.1; done
}
trap cleanup EXIT
for spec in "$@"; do
  name=${spec%%=*} dist=${spec#*=} flags=""
  [[ $dist == *@* ]] && { flags=${dist#*@}; dist=${dist%%@*}; }
  if [[ $dist == proxy ]]; then cmd=(node "$KIT/proxy/minimal-proxy.mjs");
  elif [[ $dist == floor ]]; then cmd=(node "$ROOT/bench/floor-forwarder.mjs"); else cmd=(node $flags "$dist/cli.js" serve --config "$CONFIG"); fi
  for _ in $(seq "$INST"); do
    BENCH_GATEWAY_PORT=$port BENCH_UPSTREAM_BASE_URL=http://127.0.0.1:$PORT_UP/v1 setsid taskset -c 0 "${cmd[@]}" >/dev/null 2>&1 &
    pids+=($!); tags+=("$name"); ports+=($port); port=$((port + 1))
  done
  names+=("$name")
done
load() { BENCH_STREAM=$STREAM taskset -c 1 wrk -t1 -c64 -d"$2" -s "$KIT/wrk/chat.lua" "http://127.0.0.1:$1/v1/chat/completions" 2>&1; }
for i in "${!pids[@]}"; do
  for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:${ports[$i]}/v1/models" -H 'authorization: Bearer sk-bench-0123456789abcdef0123456789abcdef' && break; sleep 0.1; done
  load "${ports[$i]}" 2s >/dev/null # warm-up
done
declare -A results
for _ in $(seq "$ROUNDS"); do
  for i in "${!pids[@]}"; do
    before=$(awk '{print $14 + $15}' "/proc/${pids[$i]}/stat")
    requests=$(load "${ports[$i]}" "${SECS}s" | grep -oE '[0-9]+ requests in' | grep -oE '^[0-9]+')
    after=$(awk '{print $14 + $15}' "/proc/${pids[$i]}/stat")
    results[$i]+="$(awk -v a="$before" -v b="$after" -v n="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) * 1e6 / hz / n }') "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for name in "${names[@]}"; do
  per=""
  for i in "${!pids[@]}"; do [[ ${tags[$i]} == "$name" ]] && per+="$(echo "${results[$i]}" | median) "; done
  echo "$MODE $name: $(echo "$per" | median) µs CPU per request (per process: $per)"
done
