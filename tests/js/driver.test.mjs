// The compactions' steps run in JS (js/driver.mjs) and the module hands no closure to JS: the built
// glue is wasm-bindgen's own, without closure machinery and without the patch that once silenced
// stale closures. A trap while a Compactor sits in a retry pause and a Session waits on its
// summarizer ends both calls with INTERNAL, nothing is left uncaught, and the process exits 0
// (run in a child process).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const root = new URL("../../", import.meta.url);
const glue = ["pkg/node/context_compaction.cjs", "pkg/web/context_compaction.js"].map((p) => fileURLToPath(new URL(p, root)));

test("the built glue is wasm-bindgen's, unpatched and without closures", () => {
  for (const file of glue) {
    const text = fs.readFileSync(file, "utf8");
    assert.doesNotMatch(text, /Cannot invoke closure/, file);
    assert.doesNotMatch(text, /stale-closures/, file);
    assert.doesNotMatch(text, /CLOSURE_DTORS|makeMutClosure|makeClosure/, file);
    assert.doesNotMatch(text, /__wbg_adapter|closure\d+_externref_shim|wasm_bindgen__convert__closures/, file);
  }
  assert.equal(fs.existsSync(fileURLToPath(new URL("scripts/stale-closures.mjs", root))), false);
  // Node runs the web target's glue bundled to CommonJS by esbuild: the build edits no generated file.
  const build = fs.readFileSync(fileURLToPath(new URL("scripts/build.sh", root)), "utf8");
  assert.doesNotMatch(build, /\bsed\b|\bperl\b|fast-strings|--target nodejs/);
  assert.equal(fs.existsSync(fileURLToPath(new URL("scripts/fast-strings.mjs", root))), false);
  assert.equal(fs.existsSync(fileURLToPath(new URL("pkg/node/context_compaction.js", root))), false);
  // The module's own dependencies (a test suite may await promises).
  const cargo = fs.readFileSync(fileURLToPath(new URL("Cargo.toml", root)), "utf8");
  const sections = cargo.split(/^(?=\[)/m).filter((s) => /^\[(dependencies|target\.[^\]]*\.dependencies)\]/.test(s));
  assert.ok(sections.length >= 2);
  for (const section of sections) assert.doesNotMatch(section, /wasm-bindgen-futures/);
});

test("the driver is installed on the classes, and the guard wraps it", async () => {
  const cc = await import("../../js/node.mjs");
  let calls = 0;
  const compactor = new cc.Compactor({
    contextWindow: 4000,
    retries: 1,
    retryDelayMs: 1,
    summarize: async () => {
      calls += 1;
      if (calls === 1) throw new Error("flaky");
      return "summary";
    },
  });
  const history = [];
  for (let i = 0; i < 12; i++) history.push({ role: "user", content: "word ".repeat(200) + i }, { role: "assistant", content: "text ".repeat(200) });
  const result = await compactor.compact(history);
  assert.equal(result.compacted, true);
  assert.equal(calls, 2);
  await assert.rejects(compactor.compact(history, { bogus: 1 }), (e) => e instanceof cc.CompactionError && e.code === "INVALID_OPTIONS");
  assert.throws(() => cc.withOverflowRecovery(1, [], () => {}), (e) => e.code === "INVALID_INPUT" && e.path === "send");
});

const cjs = fileURLToPath(new URL("../../js/node.cjs", import.meta.url));
const script = `
const cc = require(${JSON.stringify(cjs)});
const trap = cc[Symbol.for("context-compaction.trap")];
let uncaught = 0;
process.on("uncaughtException", () => { uncaught += 1; });
process.on("unhandledRejection", () => { uncaught += 1; });
let release;
const gate = new Promise((r) => (release = r));
let failing = 0;
const flaky = async () => { failing += 1; throw new Error("down"); };
const waiting = async () => { await gate; return "summary"; };
const history = [];
for (let i = 0; i < 30; i++) history.push({ role: "user", content: "word ".repeat(300) + i }, { role: "assistant", content: "text ".repeat(300) });
const outcome = (p) => p.then(() => "resolved", (e) => (e instanceof cc.CompactionError ? e.code : "other"));
(async () => {
  // A retry pause of 300 ms after the first failed call.
  const compactor = new cc.Compactor({ contextWindow: 8000, summarize: flaky, retries: 3, retryDelayMs: 300, timeoutMs: 2000 });
  const session = new cc.Session({ contextWindow: 8000, summarize: waiting, timeoutMs: 2000 });
  session.append(history);
  const pending = [outcome(compactor.compact(history)), outcome(session.compact())];
  await new Promise((r) => setTimeout(r, 50));
  const paused = failing === 1 && session.isCompacting;
  let trapped;
  try { trap(); } catch (e) { trapped = e.code; }
  release();
  const codes = await Promise.all(pending);
  // The pause ends and the summarizer answers after the reset: their steps end quietly.
  await new Promise((r) => setTimeout(r, 700));
  console.log(JSON.stringify({ paused, trapped, codes, uncaught, retried: failing > 1 }));
})();
`;

test("a trap during a retry pause and a pending summarizer: both calls are INTERNAL, nothing uncaught, exit 0", () => {
  const out = execFileSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 60_000 });
  const result = JSON.parse(out.trim().split("\n").pop());
  assert.deepEqual(result, { paused: true, trapped: "INTERNAL", codes: ["INTERNAL", "INTERNAL"], uncaught: 0, retried: false });
});
