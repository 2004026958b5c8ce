#!/usr/bin/env bash
# `npm test`: sets up, builds, and runs every check in order, stopping at the first failure.
# Ends with one line `N passed, N failed, N skipped` (tests counted from each runner; a check
# without its own tests, such as clippy or the size report, counts as one). A skipped, ignored or
# todo test fails the run: every test must run.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CARGO_TERM_COLOR=never
log_dir=tests/.tmp/logs
mkdir -p "$log_dir"
passed=0
failed=0
skipped=0

finish() {
  echo "$passed passed, $failed failed, $skipped skipped"
  exit $((failed > 0 || skipped > 0))
}

# The stores' servers (PostgreSQL, Redis) run only for the tests: stopped however the run ends.
stop_servers() {
  bash scripts/postgres.sh stop >/dev/null 2>&1 || true
  bash scripts/redis.sh stop >/dev/null 2>&1 || true
}
trap stop_servers EXIT

# step NAME COMMAND...: runs it, adds its test counts, stops everything on failure.
step() {
  local name=$1
  shift
  local log="$log_dir/$(echo "$name" | tr ' /' '__').log"
  echo "== $name"
  "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  local p f s
  # cargo test and wasm-bindgen-test: "test result: ok. 4 passed; 0 failed; 1 ignored"
  s=$(awk '/^test result: /{for(i=1;i<=NF;i++){if($i~/^ignored;?$/)s+=$(i-1)}} END{print s+0}' "$log")
  # node --test: "ℹ skipped 1" / "ℹ todo 1"
  s=$((s + $(sed -n 's/^ℹ \(skipped\|todo\) \([0-9][0-9]*\)$/\2/p' "$log" | awk '{n+=$1} END{print n+0}')))
  p=$(awk '/^test result: /{for(i=1;i<=NF;i++){if($i~/^passed;?$/)p+=$(i-1)} n=1} END{if(n)print p+0}' "$log")
  f=$(awk '/^test result: /{for(i=1;i<=NF;i++){if($i~/^failed;?$/)f+=$(i-1)} n=1} END{if(n)print f+0}' "$log")
  # node --test (spec reporter): "ℹ pass 12" / "ℹ fail 0"
  if [ -z "$p" ]; then
    p=$(sed -n 's/^ℹ pass \([0-9][0-9]*\)$/\1/p' "$log" | tail -1)
    f=$(sed -n 's/^ℹ fail \([0-9][0-9]*\)$/\1/p' "$log" | tail -1)
  fi
  if [ -z "$p" ]; then
    if [ "$status" -eq 0 ]; then p=1; f=0; else p=0; f=1; fi
  fi
  [ "$status" -ne 0 ] && [ "${f:-0}" -eq 0 ] && f=1
  passed=$((passed + p))
  failed=$((failed + ${f:-0}))
  skipped=$((skipped + s))
  [ "$s" -gt 0 ] && echo "!! $name skipped $s tests"
  if [ "$status" -ne 0 ]; then
    echo "!! $name failed (log: $log)"
    finish
  fi
}

step "setup" bash scripts/setup.sh
step "build" bash scripts/build.sh
step "size report" node scripts/size.mjs
step "cargo fmt" cargo fmt --check
step "clippy native" cargo clippy --all-targets --quiet -- -D warnings
step "clippy wasm32" cargo clippy --all-targets --quiet --target wasm32-unknown-unknown -- -D warnings
step "cargo test" cargo test --quiet
step "wasm-pack test node" wasm-pack --log-level warn test --node
step "wasm-pack test chrome" wasm-pack --log-level warn test --headless --chrome -- --features browser-tests
step "servers for the stores" bash -c 'bash scripts/postgres.sh start && bash scripts/redis.sh start'
step "js tests" node --test --test-reporter=spec tests/js/
step "tsc consumer" tsc --noEmit -p tests/types
step "tsc ecosystems" tsc --noEmit -p tests/types/ecosystems
finish
