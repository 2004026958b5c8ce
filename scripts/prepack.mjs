// Runs before `npm pack` / `npm publish`: a tarball without the built module, or with an entry
// point whose files are missing, cannot be made.
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const required = [
  "pkg/web/context_compaction_bg.wasm",
  "pkg/web/context_compaction.js",
  "pkg/node/context_compaction.cjs",
  "pkg/node/guard.cjs",
  "pkg/node/ai-sdk.cjs",
  "pkg/node/langchain-adapter.cjs",
  "pkg/types/esm/index.d.mts",
  "pkg/types/cjs/index.d.cts",
  "encodings/o200k_base.ranks",
  "encodings/cl100k_base.ranks",
];
const missing = required.filter((file) => !existsSync(join(root, file)));
if (missing.length > 0) {
  console.error(`prepack: missing ${missing.join(", ")}; run \`npm run build\` first`);
  process.exit(1);
}
