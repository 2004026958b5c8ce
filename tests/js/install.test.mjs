// The package as users get it: `npm pack`, installed into a fresh project. Both module systems load
// every entry (the main one, the LangChain one) from the tarball, which holds one WebAssembly module,
// the docs and the changelog, and no test fixtures; `prepack` refuses to pack an unbuilt tree.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root, consumerWith } from "./pack.mjs";

test("the installed tarball: every entry in both module systems, one .wasm, docs, no fixtures, no internal hooks", () => {
  const dir = consumerWith("install");
  const installed = join(dir, "node_modules/context-compaction");
  const wasm = [];
  const declarations = [];
  const scripts = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const file = join(d, e.name);
      if (e.isDirectory()) walk(file);
      else if (e.name.endsWith(".wasm")) wasm.push(file);
      else if (/\.d\.[cm]?ts$/.test(e.name)) declarations.push(file);
      else if (/\.[cm]?js$/.test(e.name)) scripts.push(file);
    }
  };
  walk(installed);
  // The hooks the entries use to configure the module are declared nowhere, and the test-only
  // oracle of earlier versions is not shipped at all.
  assert.ok(declarations.length >= 3, `declarations: ${declarations}`);
  for (const file of declarations) assert.doesNotMatch(readFileSync(file, "utf8"), /__configure|__installEncoding|__renderDrop/, file);
  for (const file of scripts) assert.doesNotMatch(readFileSync(file, "utf8"), /__renderDrop/, file);
  assert.equal(wasm.length, 1, `one WebAssembly module ships: ${wasm}`);
  for (const file of ["README.md", "CHANGELOG.md", "LICENSE", "docs/api.md", "docs/presets.md"]) assert.ok(existsSync(join(installed, file)), file);
  for (const file of ["fixtures", "tests", "src", "fuzz"]) assert.ok(!existsSync(join(installed, file)), `${file} is not published`);

  writeFileSync(
    join(dir, "esm.mjs"),
    `import { Compactor, countTokens, estimateTokens } from "context-compaction";
import { Compactor as LC, toBaseMessages } from "context-compaction/langchain";
const m = toBaseMessages([{ type: "human", content: "hello" }]);
const c = new LC({ contextWindow: 10000, summarize: () => "s" });
import * as main from "context-compaction";
import * as web from "context-compaction/web";
import * as lc from "context-compaction/langchain";
const internal = [main, web, lc].flatMap((e) => Object.keys(e)).filter((k) => k.startsWith("__"));
if (internal.length) throw new Error("internal exports: " + internal);
console.log(countTokens("hello world", "o200k_base"), estimateTokens("hello world") > 0, c.estimate(m).total > 0, typeof Compactor);`,
  );
  writeFileSync(
    join(dir, "cjs.cjs"),
    `const { countTokens } = require("context-compaction");
const { toBaseMessages } = require("context-compaction/langchain");
console.log(countTokens("hello world", "cl100k_base"), toBaseMessages([{ type: "ai", content: "x" }])[0].getType());`,
  );
  // LangChain is the consumer's dependency: link the repository's copy.
  mkdirSync(join(dir, "node_modules/@langchain"), { recursive: true });
  for (const [from, to] of [
    ["node_modules/@langchain/core", "node_modules/@langchain/core"],
    ["node_modules/@langchain/langgraph", "node_modules/@langchain/langgraph"],
  ]) {
    if (!existsSync(join(dir, to))) execFileSync("ln", ["-s", join(root, from), join(dir, to)]);
  }
  const run = (file) => execFileSync(process.execPath, ["--preserve-symlinks", file], { cwd: dir, encoding: "utf8" }).trim();
  assert.equal(run("esm.mjs"), "2 true true function");
  assert.equal(run("cjs.cjs"), "2 ai");
});

test("prepack refuses a tree without the built module", () => {
  const dir = join(root, "tests/.tmp/prepack");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "scripts"), { recursive: true });
  cpSync(join(root, "scripts/prepack.mjs"), join(dir, "scripts/prepack.mjs"));
  const r = spawnSync(process.execPath, [join(dir, "scripts/prepack.mjs")], { encoding: "utf8" });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /missing pkg\/web\/context_compaction_bg\.wasm/);
  assert.equal(spawnSync(process.execPath, [join(root, "scripts/prepack.mjs")]).status, 0, "the built tree packs");
});

test("the tarball's declarations: arethetypeswrong finds no problem in any entry point", () => {
  const dir = consumerWith("install-attw");
  const tarball = join(`${dir}-pack`, readdirSync(`${dir}-pack`).find((f) => f.endsWith(".tgz")));
  /** attw's JSON report and exit status (the report goes through a file: a pipe may be cut at exit). */
  const attw = (name, args) => {
    const out = join(dir, `${name}.json`);
    const r = spawnSync("sh", ["-c", `"$0" --format json "$@" -- "${tarball}" > "${out}"`, join(root, "node_modules/.bin/attw"), ...args], { encoding: "utf8" });
    return { status: r.status, stderr: r.stderr, report: JSON.parse(readFileSync(out, "utf8")) };
  };
  // Every entry but the browser ones, in every resolution mode (node10, node16 from CJS and from
  // ESM, bundler): each has the types of its own module system.
  const esmOnly = ["./web", "./bundler"];
  const strict = attw("strict", ["--exclude-entrypoints", ...esmOnly]);
  assert.deepEqual(strict.report.problems, {}, JSON.stringify(strict.report.problems, null, 1));
  assert.equal(strict.status, 0, strict.stderr);
  // The browser entries are ES modules only (the bundler one initialises with a top-level await):
  // checked as such, where a `require` of them has no meaning.
  const browser = attw("esm-only", ["--entrypoints", ...esmOnly, "--profile", "esm-only"]);
  const counted = Object.values(browser.report.problems).flat().filter((p) => !["node10", "node16-cjs"].includes(p.resolutionKind));
  assert.deepEqual(counted, []);
  assert.equal(browser.status, 0, browser.stderr);
  const checked = [...Object.keys(strict.report.analysis.entrypoints), ...Object.keys(browser.report.analysis.entrypoints)];
  const exported = Object.keys(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).exports).filter((k) => !k.includes("*") && k !== "./package.json");
  for (const entry of exported) assert.ok(checked.includes(entry), `attw did not check ${entry}`);
});

test("default and named imports, ES module and CommonJS: the types allow exactly what runs", () => {
  const dir = consumerWith("install-imports");
  const files = {
    "named.mjs": `import { countTokens } from "context-compaction"; import * as all from "context-compaction"; console.log(countTokens("hello world", "o200k_base"), typeof all.Compactor);`,
    "named.cjs": `const { countTokens } = require("context-compaction"); const all = require("context-compaction"); console.log(countTokens("hello world", "o200k_base"), typeof all.Compactor);`,
    "default.mjs": `import cc from "context-compaction"; console.log(typeof cc);`,
    "named.mts": `import { countTokens, Compactor } from "context-compaction"; import * as all from "context-compaction"; const n: number = countTokens("x", "o200k_base"); new all.Compactor({ contextWindow: 1000 }); export { n, Compactor };`,
    "named.cts": `import { countTokens } from "context-compaction"; import all = require("context-compaction"); const n: number = countTokens("x", "o200k_base") + all.estimateTokens("x"); export { n };`,
    "default.mts": `import cc from "context-compaction";\nexport const x = cc;`,
    "stores.mts": `import { sqliteStore } from "context-compaction/sqlite"; import { fileStore } from "context-compaction/file"; export { sqliteStore, fileStore };`,
    "stores.cts": `import { sqliteStore } from "context-compaction/sqlite"; import { fileStore } from "context-compaction/file"; export { sqliteStore, fileStore };`,
    "tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom", "esnext.disposable"], types: [], skipLibCheck: false },
      files: ["named.mts", "named.cts", "default.mts", "stores.mts", "stores.cts"],
    }),
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const node = (file) => spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8" });
  assert.equal(node("named.mjs").stdout.trim(), "2 function");
  assert.equal(node("named.cjs").stdout.trim(), "2 function");
  const defaultRun = node("default.mjs");
  assert.notEqual(defaultRun.status, 0);
  assert.match(defaultRun.stderr, /does not provide an export named 'default'/);
  // tsc accepts the named imports of both systems and refuses the default import that throws.
  const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "."], { cwd: dir, encoding: "utf8" });
  const errors = tsc.stdout.split("\n").filter((l) => /error TS/.test(l));
  assert.equal(errors.length, 1, tsc.stdout);
  assert.match(errors[0], /^default\.mts\(1,8\): error TS1192: Module .* has no default export/);
});
