#!/usr/bin/env bash
# Builds the wasm package in release for Node (CommonJS) and the web (ES module + init; also what
# bundlers get) into pkg/node and pkg/web: cargo, then wasm-bindgen with the reset-state function
# (a trap replaces the instance, see js/guard.mjs), then wasm-opt from the npm package `binaryen`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

cargo build --quiet --lib --release --target wasm32-unknown-unknown
input=target/wasm32-unknown-unknown/release/context_compaction.wasm
rm -rf pkg/node pkg/web pkg/bundler
for target in nodejs web; do
  case "$target" in
    nodejs) out=node ;;
    *) out=$target ;;
  esac
  wasm-bindgen --target "$target" --out-dir "pkg/$out" --out-name context_compaction \
    --experimental-reset-state-function "$input"
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals "pkg/$out/context_compaction_bg.wasm" -o "pkg/$out/context_compaction_bg.wasm"
done
# wasm-bindgen writes `inline_js` snippets as ES modules but `require`s them from the CommonJS
# Node build: turn their `export function f(` declarations into `exports.f = function f(`. The
# trap guard (js/guard.mjs) becomes CommonJS the same way.
find pkg/node/snippets -name '*.js' 2>/dev/null | while read -r snippet; do
  sed -i 's/^export function \([A-Za-z_][A-Za-z0-9_]*\)(/exports.\1 = function \1(/' "$snippet"
done
sed 's/^export function \([A-Za-z_][A-Za-z0-9_]*\)(/exports.\1 = function \1(/' js/guard.mjs > pkg/node/guard.cjs
# The reset function is the guard's, not the API's: keep it out of the published types.
sed -i '/^export function __wbg_reset_state(): void;$/d' pkg/node/context_compaction.d.ts pkg/web/context_compaction.d.ts
# Each target directory declares its module system for Node.
printf '{ "type": "commonjs" }\n' > pkg/node/package.json
printf '{ "type": "module" }\n' > pkg/web/package.json
echo "built pkg/node pkg/web"
