#!/usr/bin/env bash
# Installs an official Node.js 24 binary from the npm registry (the `node` package, which
# fetches the platform's `node-<os>-<arch>` build) into a cache folder outside the repository,
# and prints the path of its `node` binary. Idempotent: a second run only prints the path.
# Used by .ci/run (the suite on Node 24 beside the machine's Node 20) and by
# bench/run-bench.sh (BENCH_NODE=24). Override the folder with SWITCHYARD_NODE24_DIR.
set -euo pipefail
DIR="${SWITCHYARD_NODE24_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/switchyard/node24}"
BIN="$DIR/node_modules/node/bin/node"
if ! [[ -x "$BIN" ]] || ! [[ "$("$BIN" --version 2>/dev/null)" == v24.* ]]; then
  mkdir -p "$DIR"
  # Its own package.json keeps npm from walking up into a project; the install scripts of
  # `node` fetch the binary, so they must run.
  [[ -f "$DIR/package.json" ]] || echo '{"name":"switchyard-node24","private":true}' > "$DIR/package.json"
  npm install --prefix "$DIR" --no-audit --no-fund --no-save --loglevel=error node@24 >&2
fi
version="$("$BIN" --version)"
[[ "$version" == v24.* ]] || { echo "node24: $BIN reports $version, not v24" >&2; exit 1; }
echo "$BIN"
