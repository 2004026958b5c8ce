#!/usr/bin/env bash
# `npm run bench`: builds the package, installs the peers the benchmark compares against (into
# bench/node_modules only; they are not dependencies of the package), runs bench/run.mjs and
# rewrites docs/BENCHMARKS.md. Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh >/dev/null
bash scripts/build.sh
if [ ! -f bench/node_modules/.package-lock.json ] || [ bench/package.json -nt bench/node_modules/.package-lock.json ]; then
  npm install --prefix bench --no-audit --no-fund --loglevel=error
fi
node --expose-gc bench/run.mjs
