#!/usr/bin/env bash
# Builds the wasm package in release for Node (CommonJS) and the web (ES module + init; also what
# bundlers get) into pkg/node and pkg/web: cargo, then wasm-bindgen with the reset-state function
# (a trap replaces the instance, see js/guard.mjs), then wasm-opt from the npm package `binaryen`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

cargo build --quiet --lib --release --target wasm32-unknown-unknown
input=target/wasm32-unknown-unknown/release/context_compaction.wasm
rm -rf pkg/node pkg/web pkg/bundler pkg/types
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
# Long strings cross into wasm through the engine's UTF-8 encoder (see the script).
node scripts/fast-strings.mjs pkg/node/context_compaction.js pkg/web/context_compaction.js
# Callbacks of an instance the trap guard replaced do nothing (see the script).
node scripts/stale-closures.mjs pkg/node/context_compaction.js pkg/web/context_compaction.js
# wasm-bindgen writes `inline_js` snippets as ES modules but `require`s them from the CommonJS
# Node build: turn their `export function f(` declarations into `exports.f = function f(`. The
# trap guard (js/guard.mjs) and the AI SDK middleware (js/ai-sdk.mjs) become CommonJS the same way.
find pkg/node/snippets -name '*.js' 2>/dev/null | while read -r snippet; do
  sed -i 's/^export function \([A-Za-z_][A-Za-z0-9_]*\)(/exports.\1 = function \1(/' "$snippet"
done
for module in guard ai-sdk langchain-adapter; do
  sed 's/^export function \([A-Za-z_][A-Za-z0-9_]*\)(/exports.\1 = function \1(/' "js/$module.mjs" > "pkg/node/$module.cjs"
done
# The reset function is the guard's, not the API's: keep it out of the published types. The
# declarations of the raw wasm exports, and the web glue's (which lists them in `InitOutput`), are
# read by no entry (js/web.d.mts declares `init`): they are not shipped.
sed -i '/^export function __wbg_reset_state(): void;$/d' pkg/node/context_compaction.d.ts
rm -f pkg/node/context_compaction_bg.wasm.d.ts pkg/web/context_compaction_bg.wasm.d.ts pkg/web/context_compaction.d.ts
# Both targets' modules are the same bytes: the package ships the web one only, and the Node glue
# reads it from there (checked; if they ever differ, each target keeps its own).
if cmp -s pkg/node/context_compaction_bg.wasm pkg/web/context_compaction_bg.wasm; then
  rm pkg/node/context_compaction_bg.wasm
  sed -i 's|${__dirname}/context_compaction_bg.wasm|${__dirname}/../web/context_compaction_bg.wasm|' pkg/node/context_compaction.js
  grep -q '../web/context_compaction_bg.wasm' pkg/node/context_compaction.js
fi
# The store-backed Session and Compactor (js/stored-session.mjs, js/stored-compactor.mjs) and the stores' subpath entries as real
# CommonJS builds (esbuild, from npm); the stores' clients (better-sqlite3, pg, ioredis, idb,
# bullmq) stay outside them: optional peer dependencies.
for module in stored-session stored-compactor; do
  esbuild "js/$module.mjs" --bundle --format=cjs --platform=neutral --log-level=warning \
    --outfile="pkg/node/$module.cjs"
done
mkdir -p pkg/stores
for store in memory file sqlite postgres redis indexeddb bullmq; do
  [ -f "js/stores/$store.mjs" ] || continue
  esbuild "js/stores/$store.mjs" --bundle --format=cjs --platform=node --log-level=warning \
    --external:better-sqlite3 --external:pg --external:ioredis --external:idb --external:bullmq \
    --outfile="pkg/stores/$store.cjs"
done
# The LangChain entry's types, once per module system (each sees LangChain's own of that system).
mkdir -p pkg/types
cp js/langchain.d.ts pkg/types/langchain.d.mts
# Each target directory declares its module system for Node.
printf '{ "type": "commonjs" }\n' > pkg/node/package.json
printf '{ "type": "module" }\n' > pkg/web/package.json
echo "built pkg/node pkg/web"
