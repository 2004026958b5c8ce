// Writes the package's declarations once per module system: every declaration file under js/
// (js/index.d.ts, js/web.d.mts, js/langchain.d.ts, js/stores/*.d.ts, js/types/*.d.ts) becomes
// pkg/types/esm/<same path>.d.mts and pkg/types/cjs/<same path>.d.cts, with its relative imports
// (`"./x.js"`) naming the copy of the same system (`"./x.mjs"`, `"./x.cjs"`). An importer then
// gets ES module types and a `require` caller CommonJS ones, as the code they load is
// (package.json "exports"; checked by arethetypeswrong in tests/js/install.test.mjs). The texts are
// otherwise the same: the files under js/ are the only ones to edit.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const source = join(root, "js");
const out = join(root, "pkg/types");

/** Declaration files under `dir`, recursively. */
function declarations(dir) {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) return declarations(file);
    return /\.d\.m?ts$/.test(name) ? [file] : [];
  });
}

// A relative module specifier in `from "…"`, `import("…")` or `declare module "…"`.
const SPECIFIER = /((?:from|import\(|declare module)\s*)"(\.{1,2}\/[^"]*?)\.(?:m?js)"/g;

rmSync(out, { recursive: true, force: true });
const files = declarations(source);
for (const [system, ext] of [["esm", "mjs"], ["cjs", "cjs"]]) {
  for (const file of files) {
    const rel = relative(source, file).replace(/\.d\.m?ts$/, "");
    const text = readFileSync(file, "utf8").replace(SPECIFIER, (_, head, path) => `${head}"${path}.${ext}"`);
    const target = join(out, system, `${rel}.d.${ext === "mjs" ? "mts" : "cts"}`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}
console.log(`wrote ${files.length} declaration files to pkg/types/esm and pkg/types/cjs`);
