#!/usr/bin/env bash
# `npm run bench`: the shared benchmark kit with Switchyard as the custom target, next to
# the minimal Node proxy and Portkey. Extra arguments go to run.sh (e.g. --quick,
# --scenarios thr,stream), then bench/front-doors.sh (the Anthropic Messages and Responses
# doors' native paths beside the chat door). Needs wrk, nginx (apt-get install -y wrk nginx) beside node.
# BENCH_NODE=24 runs everything (the build, the gateway, the kit's proxy) on Node 24 LTS,
# installed from the npm registry by scripts/node24.sh; unset, the Node on PATH.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${BENCH_NODE:-}" in
  '') ;;
  24) PATH="$(dirname "$("$ROOT/scripts/node24.sh")"):$PATH"; export PATH ;;
  *) echo "run-bench: BENCH_NODE=${BENCH_NODE} is not supported (24, or unset for the Node on PATH)" >&2; exit 1 ;;
esac
echo "run-bench: node $(node --version) ($(command -v node))" >&2
KIT="${BENCH_KIT:-$ROOT/../shared/bench}"
[[ -x "$KIT/run.sh" ]] || { echo "run-bench: benchmark kit not found at $KIT (set BENCH_KIT)" >&2; exit 1; }
npm run --silent --prefix "$ROOT" build
"$KIT/run.sh" \
  --custom-name switchyard \
  --custom-cmd "exec node '$ROOT/dist/cli.js' serve --config '$ROOT/bench/bench-config.yaml'" \
  "$@"
# The front doors on their native paths, CPU per request beside the chat door's
# (bench/front-doors.sh); BENCH_FRONT_DOORS=0 leaves them out.
if [[ ${BENCH_FRONT_DOORS:-1} != 0 ]]; then
  for mode in json sse; do bash "$ROOT/bench/front-doors.sh" "$mode" "${BENCH_FRONT_DOOR_SECONDS:-8}" 3; done
fi
