#!/usr/bin/env bash
# Builds the wasm package in release for Node (CommonJS) and the web (ES module + init; also what
# bundlers get) into pkg/node and pkg/web: cargo, then wasm-bindgen with the reset-state function
# (a trap replaces the instance, see js/guard.mjs), then wasm-opt from the npm package `binaryen`;
# then the CommonJS builds (esbuild) and the declarations of both module systems (pkg/types).
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
# The snippets (js/snippets/*.js, ES modules) are `require`d by the CommonJS Node glue: esbuild
# writes each as real CommonJS in place. The trap guard (js/guard.mjs), the driver of compactions
# (js/driver.mjs), the AI SDK middleware (js/ai-sdk.mjs) and the LangChain adapter become CommonJS
# the same way. The glue is used as wasm-bindgen wrote it: the module holds no closure.
find pkg/node/snippets -name '*.js' | while read -r snippet; do
  esbuild "$snippet" --format=cjs --platform=neutral --log-level=warning --outfile="$snippet" --allow-overwrite
done
for module in guard driver ai-sdk langchain-adapter; do
  esbuild "js/$module.mjs" --format=cjs --platform=neutral --log-level=warning --outfile="pkg/node/$module.cjs"
done
# The package's declarations are js/types (hand-written, tied to the code by
# tests/js/declarations.test.mjs): the glue's generated ones are not shipped.
rm -f pkg/node/*.d.ts pkg/web/*.d.ts
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
# The declarations once per module system (pkg/types/esm/*.d.mts, pkg/types/cjs/*.d.cts), so that
# each entry's types are of the module system of its code (and the LangChain entry's see
# LangChain's own types of that system).
node scripts/types.mjs
# Each target directory declares its module system for Node.
printf '{ "type": "commonjs" }\n' > pkg/node/package.json
printf '{ "type": "module" }\n' > pkg/web/package.json
echo "built pkg/node pkg/web"
