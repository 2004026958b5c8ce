#!/usr/bin/env bash
# Installs what building and testing need, idempotently; quick when everything is present.
# Everything is compiled from crates.io or comes from Debian/npm: no binary downloads.
#   - the Rust toolchain of rust-toolchain.toml with the wasm32-unknown-unknown target
#   - wasm-bindgen-cli at exactly the version of wasm-bindgen in Cargo.lock, and wasm-pack
#   - Chromium and chromedriver from Debian (when missing and running as root)
#   - npm dependencies exactly as package-lock.json has them, with `npm ci`, which never writes the
#     lockfile: a clone stays clean (wasm-opt comes from the npm package binaryen)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
say() { printf 'setup: %s\n' "$*"; }

command -v cargo >/dev/null || { say "cargo not found: install Rust with rustup (https://rustup.rs)"; exit 1; }
command -v node >/dev/null || { say "node not found: install Node.js 18 or newer"; exit 1; }

# The toolchain file pins the channel; rustup installs it (and the target) on first use.
toolchain=$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)
if ! rustup target list --installed --toolchain "$toolchain" 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target to $toolchain"
  rustup toolchain install "$toolchain" --profile minimal -c rustfmt -c clippy -t wasm32-unknown-unknown
  rustup target add wasm32-unknown-unknown --toolchain "$toolchain"
fi

# wasm-bindgen-cli must match the wasm-bindgen crate exactly.
[ -f Cargo.lock ] || cargo generate-lockfile
wb_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wb_version" ]; then
  say "installing wasm-bindgen-cli $wb_version (compiled from crates.io)"
  cargo install wasm-bindgen-cli --version "=$wb_version" --force
fi
if ! command -v wasm-pack >/dev/null; then
  say "installing wasm-pack (compiled from crates.io)"
  cargo install wasm-pack
fi

# Headless Chromium for the browser tests.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing chromium and chromium-driver from Debian"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  else
    say "chromium and chromedriver are needed for the browser tests: install them"
    say "(Debian/Ubuntu: sudo apt-get install chromium chromium-driver) and run again"
    exit 1
  fi
fi

# Native addons (better-sqlite3, for the SQLite store) compile against the installed Node's own
# headers: node-gyp would otherwise download them, and only the package registries are reachable.
node_prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
if [ -z "${npm_config_nodedir:-}" ] && [ -f "$node_prefix/include/node/common.gypi" ]; then
  export npm_config_nodedir="$node_prefix"
fi

# npm dependencies as package-lock.json has them, unless node_modules already holds exactly that
# (scripts/lock-installed.mjs). `npm ci` installs the lockfile as it is and never rewrites it
# (`npm install` would, differently for each npm version and platform), and fails when package.json
# and the lockfile disagree. The lockfile holds every platform's optional packages (esbuild's,
# rollup's); tests/js/lockfile.test.mjs checks that, and docs/development.md says how to regenerate it.
if ! node scripts/lock-installed.mjs; then
  say "installing npm dependencies from package-lock.json (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
say "ready"
