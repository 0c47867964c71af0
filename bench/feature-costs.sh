#!/usr/bin/env bash
# What each feature of a chat JSON request costs, measured alone: for every knock-out patch
# in bench/feature-knockouts/ (one feature taken off the request path, nothing else), a
# throwaway worktree of HEAD with the patch applied is built and counted with
# bench/door-instructions.sh; the table gives each build's instructions per request, what
# the knock-out saved against the full build, and that saving's share of the gap above the
# floor (bench/floor-forwarder.mjs). Last row: every patch at once, with the log, metrics
# and request record off. Sequential: a few minutes a build on a quiet machine.
#   BENCH_KIT=/work/shared/bench bash bench/feature-costs.sh [NAME ...]
# COUNT_N="N1 N2" as door-instructions.sh's (default 1200 3200). FULL= and FLOOR=
# (instructions per request) skip counting those two; DOOR_PORT as in
# door-instructions.sh (default here 18550); counted in one gateway run each (DOOR_ONE_RUN=1,
# set it empty for two). NAME `none`: the full build and the floor only.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export DOOR_PORT=${DOOR_PORT:-18550} DOOR_ONE_RUN=${DOOR_ONE_RUN-1}
KNOCKOUTS="$ROOT/bench/feature-knockouts"
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=($(cd "$KNOCKOUTS" && ls *.patch | sed 's/\.patch$//') all)
# Process metrics off in every count: their event-loop monitor runs ~3 million instructions
# a second under callgrind whatever the traffic, so with them on a count grows with the run's
# wall time (the machine's load), not with the requests.
export BENCH_METRICS=false
count() { bash "$ROOT/bench/door-instructions.sh" chat json "$1" ${COUNT_N:-} | grep -oE '[0-9]+ instructions' | grep -oE '[0-9]+'; }
# A build of HEAD in a throwaway worktree with the given patches applied; prints its count.
count_build() {
  local tree; tree=$(mktemp -d /tmp/knockout.XXXXXX)
  git -C "$ROOT" worktree add --detach --quiet "$tree" HEAD
  ln -s "$ROOT/node_modules" "$tree/node_modules"
  for patch in "$@"; do git -C "$tree" apply "$patch"; done
  (cd "$tree" && npx tsc -p tsconfig.build.json && node scripts/copy-generated-validators.mjs) >&2
  count "$tree/dist" || true
  git -C "$ROOT" worktree remove --force "$tree"
}
floor=${FLOOR:-$(count floor)}
full=${FULL:-$(count_build)}
printf '%-26s %14s %12s %16s\n' knock-out instructions saved 'share of gap'
row() { printf '%-26s %14s %12s %15s%%\n' "$1" "$2" $(( full - $2 )) $(( 100 * (full - $2) / (full - floor) )); }
row 'none (full build)' "$full"
for name in "${names[@]}"; do
  if [[ $name == none ]]; then
    continue
  elif [[ $name == all ]]; then
    row 'all, log and record off' "$(BENCH_LOG_LEVEL=warn BENCH_REQUEST_LOG=false count_build "$KNOCKOUTS"/*.patch)"
  else
    row "$name" "$(count_build "$KNOCKOUTS/$name.patch")"
  fi
done
row 'floor forwarder' "$floor"
