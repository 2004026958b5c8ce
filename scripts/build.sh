#!/usr/bin/env bash
# Builds the wasm package in release: cargo, then wasm-bindgen's `web` target with the reset-state
# function (a trap replaces the instance, see js/guard.mjs) into pkg/web, then wasm-opt from the npm
# package `binaryen`; then the CommonJS builds for Node (esbuild, pkg/node) and the declarations of
# both module systems (pkg/types).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

cargo build --quiet --lib --release --target wasm32-unknown-unknown
input=target/wasm32-unknown-unknown/release/context_compaction.wasm
rm -rf pkg/node pkg/web pkg/bundler pkg/types
# One module and one glue: wasm-bindgen's `web` target, used as it writes it (the module hands no
# closure to JS; tests/js/driver.test.mjs fails if the glue is edited or holds closure code).
wasm-bindgen --target web --out-dir pkg/web --out-name context_compaction \
  --experimental-reset-state-function "$input"
wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals pkg/web/context_compaction_bg.wasm -o pkg/web/context_compaction_bg.wasm
# The package's declarations are js/types (hand-written, tied to the code by
# tests/js/declarations.test.mjs): the glue's generated ones are not shipped.
rm -f pkg/web/*.d.ts
# Node's CommonJS build of that same glue, snippets included (esbuild bundles the ES module into
# real CommonJS; nothing is edited): js/node.cjs instantiates it with `initSync` from the web
# target's module, so both entries run the same bytes. The glue's own async init, which alone reads
# `import.meta.url`, is never called in Node.
mkdir -p pkg/node
esbuild pkg/web/context_compaction.js --bundle --format=cjs --platform=node --log-level=warning \
  --log-override:empty-import-meta=silent --outfile=pkg/node/context_compaction.cjs
# The trap guard (js/guard.mjs), the driver of compactions (js/driver.mjs), the AI SDK middleware
# (js/ai-sdk.mjs) and the LangChain adapter as CommonJS the same way.
for module in guard driver ai-sdk langchain-adapter; do
  esbuild "js/$module.mjs" --format=cjs --platform=neutral --log-level=warning --outfile="pkg/node/$module.cjs"
done
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
