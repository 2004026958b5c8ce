#!/usr/bin/env bash
# Long property runs over the format parsers and the planner (the fuzz pass; not part of npm test).
#   npm run fuzz                 # 100,000 cases per property
#   CASES=1000000 npm run fuzz   # longer
set -euo pipefail
cd "$(dirname "$0")/.."
export PROPTEST_CASES="${CASES:-100000}"
echo "fuzz: $PROPTEST_CASES cases per property (release build)"
cargo test --release --test formats_errors --test plan_props --test tokens_exact -- --test-threads 2
