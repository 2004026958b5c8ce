// A trap replaces the WebAssembly instance (js/guard.mjs) while other calls wait on their
// summarizer: those calls reject with INTERNAL, and the old instance's callbacks that fire later
// (the summarizer's promise settling, timers) do nothing instead of ending the process. Run in a
// child process, which must exit 0.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const cjs = fileURLToPath(new URL("../../js/node.cjs", import.meta.url));
const script = `
const cc = require(${JSON.stringify(cjs)});
const trap = cc[Symbol.for("context-compaction.trap")];
let release;
const gate = new Promise((r) => (release = r));
const summarize = async () => { await gate; return "summary"; };
const history = [];
for (let i = 0; i < 30; i++) history.push({ role: "user", content: "word ".repeat(300) + i }, { role: "assistant", content: "text ".repeat(300) });
const outcome = (p) => p.then((r) => "resolved", (e) => (e instanceof cc.CompactionError ? e.code : "other"));
(async () => {
  const compactor = new cc.Compactor({ contextWindow: 8000, summarize, timeoutMs: 2000 });
  const session = new cc.Session({ contextWindow: 8000, summarize, timeoutMs: 2000 });
  session.append(history);
  const log = session.toJSONL();
  const pending = [outcome(compactor.compact(history)), outcome(session.compact())];
  await new Promise((r) => setTimeout(r, 50));
  let trapped;
  try { trap(); } catch (e) { trapped = e.code; }
  release();
  const codes = await Promise.all(pending);
  // New objects work on the fresh instance.
  const after = new cc.Compactor({ contextWindow: 8000, summarize: "extractive" }).check(history).shouldCompact;
  // The session whose compaction was cut survives with its log (tests/js/reset-sessions.test.mjs).
  const kept = session.toJSONL() === log && session.render().messages.length === history.length;
  console.log(JSON.stringify({ trapped, codes, after, kept }));
})();
`;

test("calls waiting on their summarizer when the instance is reset reject with INTERNAL; the process lives on", () => {
  const out = execFileSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 60_000 });
  const result = JSON.parse(out.trim().split("\n").pop());
  assert.deepEqual(result, { trapped: "INTERNAL", codes: ["INTERNAL", "INTERNAL"], after: true, kept: true });
});
