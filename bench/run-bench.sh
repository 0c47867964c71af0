#!/usr/bin/env bash
# `npm run bench`: the shared benchmark kit with Switchyard as the custom target, next to
# the minimal Node proxy and Portkey. Extra arguments go to run.sh (e.g. --quick,
# --scenarios thr,stream). Needs wrk, nginx (apt-get install -y wrk nginx) beside node.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIT="${BENCH_KIT:-$ROOT/../shared/bench}"
[[ -x "$KIT/run.sh" ]] || { echo "run-bench: benchmark kit not found at $KIT (set BENCH_KIT)" >&2; exit 1; }
npm run --silent --prefix "$ROOT" build
exec "$KIT/run.sh" \
  --custom-name switchyard \
  --custom-cmd "exec node '$ROOT/dist/cli.js' serve --config '$ROOT/bench/bench-config.yaml'" \
  "$@"
