// Runs before `npm pack` / `npm publish`: a tarball without the built module, or with an entry
// point whose files are missing, cannot be made.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const required = [
  "pkg/web/context_compaction_bg.wasm",
  "pkg/web/context_compaction.js",
  "pkg/node/context_compaction.js",
  "pkg/node/guard.cjs",
  "pkg/node/ai-sdk.cjs",
  "pkg/node/langchain-adapter.cjs",
  "pkg/types/esm/index.d.mts",
  "pkg/types/cjs/index.d.cts",
  "encodings/o200k_base.ranks",
  "encodings/cl100k_base.ranks",
];
const missing = required.filter((file) => !existsSync(join(root, file)));
const glue = existsSync(join(root, "pkg/node/context_compaction.js")) ? readFileSync(join(root, "pkg/node/context_compaction.js"), "utf8") : "";
const nodeWasm = existsSync(join(root, "pkg/node/context_compaction_bg.wasm")) || glue.includes("../web/context_compaction_bg.wasm");
if (!nodeWasm) missing.push("pkg/node/context_compaction_bg.wasm (or the glue's path to the web one)");
if (missing.length > 0) {
  console.error(`prepack: missing ${missing.join(", ")}; run \`npm run build\` first`);
  process.exit(1);
}
