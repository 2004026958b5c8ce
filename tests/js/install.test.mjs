// The package as users get it: `npm pack`, installed into a fresh project. Both module systems load
// every entry (the main one, the LangChain one) from the tarball, which holds one WebAssembly module,
// the docs and the changelog, and no test fixtures; `prepack` refuses to pack an unbuilt tree. Its
// command-line tool runs through npx: the demo on the sample session that ships with it, a pipe
// into `head`, and the inspector page served from the installed package, in headless Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
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

// ---- The command-line tool from the install: the demo, a pipe into head, the inspector -------
// (its own consumer, so these blocks stand apart from the entry checks above)

let cliDir = null;
/** A fresh project with the packed package installed (once for these blocks). */
const cliConsumer = () => (cliDir ??= consumerWith("install-cli"));
/** `npx` in the consumer, offline, never installing anything. */
const npx = (args, options = {}) =>
  spawnSync("npx", ["--no", "context-compaction", ...args], { cwd: cliConsumer(), encoding: "utf8", env: { ...process.env, npm_config_offline: "true" }, ...options });

test("npx context-compaction demo runs from the install: the sample session ships, its license beside it", () => {
  const installed = join(cliConsumer(), "node_modules/context-compaction");
  for (const file of ["www/sample/claude-code-tool-heavy.jsonl", "www/sample/LICENSE-claude-code-tool-heavy", "www/index.html", "www/worker.mjs", "www/counter.html"]) {
    assert.ok(existsSync(join(installed, file)), file);
  }
  assert.match(readFileSync(join(installed, "www/sample/LICENSE-claude-code-tool-heavy"), "utf8"), /MIT License/);
  const r = npx(["demo"]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /=== before[\s\S]*15 in the file, 15 live[\s\S]*compact now +yes[\s\S]*=== after[\s\S]*compactions +1 recorded/);
  const j = JSON.parse(npx(["demo", "--json"]).stdout);
  assert.equal(j.file, "node_modules/context-compaction/www/sample/claude-code-tool-heavy.jsonl");
  assert.equal(j.compact.compacted, true);
});

test("npx context-compaction convert … | head -c 100: exit 0, nothing on stderr", () => {
  // A real session whose conversion is far more than a pipe holds.
  const r = spawnSync("bash", ["-c", 'set -o pipefail; npx --no context-compaction convert "$SESSION" --to openai 2>"$ERR" | head -c 100'], {
    cwd: cliConsumer(),
    encoding: "utf8",
    env: { ...process.env, npm_config_offline: "true", SESSION: join(root, "tests/fixtures/pi/large-session.jsonl"), ERR: join(cliConsumer(), "head.err") },
  });
  assert.equal(r.status, 0, readFileSync(join(cliConsumer(), "head.err"), "utf8"));
  assert.equal(r.stdout.length, 100);
  assert.match(r.stdout, /^\[\n  \{/);
  assert.equal(readFileSync(join(cliConsumer(), "head.err"), "utf8"), "");
});

test("npx context-compaction inspector serves the installed package; the page works in Chromium, offline", { timeout: 120_000 }, async () => {
  const { launchChromium } = await import("./serve.mjs");
  // Its own process group: npx and the bin it runs stop together.
  const child = spawn("npx", ["--no", "context-compaction", "inspector", "--json"], { cwd: cliConsumer(), env: { ...process.env, npm_config_offline: "true" }, detached: true });
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const browser = await launchChromium();
  try {
    const line = await new Promise((resolve, reject) => {
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes("\n")) resolve(out.split("\n")[0]);
      });
      exited.then(({ code }) => reject(new Error(`inspector exited ${code}: ${err}`)));
    });
    const { url, pages } = JSON.parse(line);
    // The installed package is what is served: the repository's tests and fixtures are not there.
    for (const path of ["/tests/js/install.test.mjs", "/tests/fixtures/claude-code/tool_heavy.jsonl", "/src/lib.rs"]) assert.equal((await fetch(url + path)).status, 404, path);
    const page = await browser.newPage();
    const errors = [];
    const elsewhere = [];
    page.on("pageerror", (e) => errors.push(e));
    page.on("request", (req) => {
      if (!req.url().startsWith(`${url}/`) && !/^(data|blob):/.test(req.url())) elsewhere.push(req.url());
    });
    await page.goto(pages.inspector);
    await page.waitForFunction(() => document.body.dataset.ready, undefined, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.package), `${url}/js/web.mjs`);
    await page.click("#sample");
    await page.waitForFunction(() => ["loaded", "error"].includes(document.body.dataset.state), undefined, { timeout: 30_000 });
    const status = await page.textContent("#status");
    assert.match(status, /^claude-code-tool-heavy\.jsonl: claude-code session, 15 messages/);
    await page.click("#compact");
    await page.waitForFunction(() => ["compacted", "error"].includes(document.body.dataset.state), undefined, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.state), "compacted", await page.textContent("#status"));
    mkdirSync(join(root, "tests/.tmp/screenshots"), { recursive: true });
    await page.screenshot({ path: join(root, "tests/.tmp/screenshots/install-inspector.png") });
    // The token counter loads its rank tables from the package too.
    await page.goto(pages.counter);
    await page.waitForFunction(() => document.body.dataset.ready, undefined, { timeout: 30_000 });
    assert.deepEqual(errors, []);
    assert.deepEqual(elsewhere, [], "every request stays on the package's server");
  } finally {
    await browser.close();
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      /* already gone */
    }
  }
  // npm ends by the signal it was sent; the tool's own exit on SIGTERM is 0 (cli.test.mjs).
  const { code, signal } = await exited;
  assert.ok(code === 0 || signal === "SIGTERM", `inspector ended with ${code ?? signal}: ${err}`);
  assert.equal(err, "");
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
