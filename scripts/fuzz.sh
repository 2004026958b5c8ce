#!/usr/bin/env bash
# The fuzz pass (not part of npm test, which runs a short smoke run of the same targets):
#   1. every coverage-guided target of fuzz/ (cargo-fuzz on nightly) for FUZZ_SECONDS each,
#      starting from the seeds in fuzz/seeds/<target> (taken from the real fixtures);
#   2. the public API on API_CASES random and corrupted message arrays (tests/js/api-fuzz.mjs);
#   3. every property test with CASES cases per property.
#   npm run fuzz                              # 300 s per target, 100,000 cases per property
#   FUZZ_SECONDS=3600 CASES=1000000 npm run fuzz
# Installs the nightly toolchain and cargo-fuzz if they are missing (for this script only).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
seconds="${FUZZ_SECONDS:-300}"
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
targets=(formats pi_session claude_code encoding options planner)
mkdir -p fuzz/corpus
report=""
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  log="fuzz/corpus/$t.log"
  echo "fuzz: $t for ${seconds}s"
  (cd fuzz && cargo +nightly fuzz run "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=4096 -print_final_stats=1) 2>&1 | tail -40 > "$log"
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  report="$report$t: ${runs:-?} executions, no crash\n"
done
printf "%b" "$report"
echo "fuzz: the public API on ${API_CASES:-50000} random and corrupted arrays"
node tests/js/api-fuzz.mjs "${API_CASES:-50000}"
export PROPTEST_CASES="${CASES:-100000}"
echo "fuzz: $PROPTEST_CASES cases per property (release build)"
cargo test --release --test formats_errors --test plan_props --test tokens_exact \
  --test prune_props --test repair_props --test summary_props --test trim_props -- --test-threads 2
