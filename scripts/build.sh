#!/usr/bin/env bash
# Builds the wasm package in release for Node (CommonJS), the web (ES module + init) and bundlers
# into pkg/node, pkg/web and pkg/bundler. wasm-opt comes from the npm package `binaryen`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

for target in nodejs web bundler; do
  case "$target" in
    nodejs) out=node ;;
    *) out=$target ;;
  esac
  wasm-pack --log-level warn build --release --no-pack --target "$target" \
    --out-dir "pkg/$out" --out-name context_compaction
  # wasm-pack writes a `*` .gitignore that would keep the files out of `npm pack`.
  rm -f "pkg/$out/.gitignore"
done
# wasm-bindgen writes `inline_js` snippets as ES modules but `require`s them from the CommonJS
# Node build: turn their `export function f(` declarations into `exports.f = function f(`.
find pkg/node/snippets -name '*.js' 2>/dev/null | while read -r snippet; do
  sed -i 's/^export function \([A-Za-z_][A-Za-z0-9_]*\)(/exports.\1 = function \1(/' "$snippet"
done
# Each target directory declares its module system for Node.
printf '{ "type": "commonjs" }\n' > pkg/node/package.json
printf '{ "type": "module" }\n' > pkg/web/package.json
printf '{ "type": "module" }\n' > pkg/bundler/package.json
echo "built pkg/node pkg/web pkg/bundler"
