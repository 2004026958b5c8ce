#!/usr/bin/env bash
# The fuzz pass (not part of npm test, which runs a short smoke run of the same targets):
#   1. every coverage-guided target of fuzz/ (cargo-fuzz on nightly) until FUZZ_RUNS executions
#      (default 10,000,000) or FUZZ_SECONDS (if set), FUZZ_JOBS targets at a time (default: one
#      per core), starting from the seeds in fuzz/seeds/<target> (taken from the real fixtures);
#   2. the public API on API_CASES random and corrupted message arrays (tests/js/api-fuzz.mjs);
#   3. every property test with CASES cases per property.
#   npm run fuzz                                  # 10 M executions per target, 50,000 API cases
#   FUZZ_SECONDS=60 API_CASES=2000 CASES=1000 npm run fuzz   # a quick pass
# The targets are built without AddressSanitizer: the crate has no unsafe code, and debug
# assertions and overflow checks stay on. Installs the nightly toolchain and cargo-fuzz if they
# are missing (for this script only). Per-target logs: fuzz/corpus/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
targets=(formats pi_session claude_code encoding exact_count options planner)
limits=(-runs="${FUZZ_RUNS:-10000000}")
if [ -n "${FUZZ_SECONDS:-}" ]; then limits+=(-max_total_time="$FUZZ_SECONDS"); fi
(cd fuzz && cargo +nightly fuzz build -s none)
mkdir -p fuzz/corpus
run_target() {
  local t="$1"
  shift
  mkdir -p "fuzz/corpus/$t"
  echo "fuzz: $t started"
  if ! (cd fuzz && cargo +nightly fuzz run -s none "$t" "corpus/$t" "seeds/$t" -- \
    "$@" -rss_limit_mb=4096 -print_final_stats=1) >"fuzz/corpus/$t.log" 2>&1; then
    echo "fuzz: $t FAILED, see fuzz/corpus/$t.log and fuzz/artifacts/$t"
    return 1
  fi
  local runs secs
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz/corpus/$t.log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "fuzz/corpus/$t.log" | tail -1)
  echo "fuzz: $t: ${runs:-?} executions in ${secs:-?} s, no crash"
}
export -f run_target
printf '%s\n' "${targets[@]}" |
  xargs -P "${FUZZ_JOBS:-$(nproc)}" -I{} bash -c 'run_target "$@"' _ {} "${limits[@]}"
echo "fuzz: the public API on ${API_CASES:-50000} random and corrupted arrays"
node tests/js/api-fuzz.mjs "${API_CASES:-50000}"
export PROPTEST_CASES="${CASES:-100000}"
echo "fuzz: $PROPTEST_CASES cases per property (release build)"
cargo test --release --test formats_errors --test plan_props --test tokens_exact \
  --test prune_props --test repair_props --test summary_props --test trim_props --test trim_lazy \
  -- --test-threads 2
