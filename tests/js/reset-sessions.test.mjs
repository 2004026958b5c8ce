// A trap replaces the WebAssembly instance (js/guard.mjs); live Sessions with unsaved appends
// survive it: each is re-created in the fresh instance from its log, behind the same object, so
// its log, live context and unflushed lines are what they were, and it keeps working. Run in a
// child process, which must exit 0.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const cjs = fileURLToPath(new URL("../../js/node.cjs", import.meta.url));
const script = `
const cc = require(${JSON.stringify(cjs)});
const trap = cc[Symbol.for("context-compaction.trap")];
const turn = (i) => [{ role: "user", content: "question " + i + " " + "word ".repeat(200) }, { role: "assistant", content: "answer " + i + " " + "text ".repeat(200) }];
const options = { contextWindow: 8000, summarize: "extractive" };
(async () => {
  const a = new cc.Session(options);
  a.append([...turn(0), ...turn(1)]);
  const flushed = a.flush();
  a.append(turn(2));
  const b = cc.Session.fromJSONL(a.toJSONL(), options);
  b.append(turn(3));
  const freed = new cc.Session(options);
  freed.append(turn(4));
  freed.free();
  const before = [a, b].map((s) => ({ log: s.toJSONL(), messages: s.render().messages, tokens: s.check().tokens }));
  let trapped;
  try { trap(); } catch (e) { trapped = e.code; }
  const after = [a, b].map((s) => ({ log: s.toJSONL(), messages: s.render().messages, tokens: s.check().tokens }));
  // The lines a had not flushed are still to be flushed; b (read from a log) had flushed nothing new but turn 3.
  const aLines = a.flush();
  const bLines = b.flush();
  // Both keep working: appends, and a prepare that compacts.
  for (let i = 5; i < 25; i++) { a.append(turn(i)); b.append(turn(i)); }
  const prepared = await Promise.all([a.prepare(), b.prepare()]);
  let freedCode;
  try { freed.check(); } catch (e) { freedCode = e.code; }
  console.log(JSON.stringify({ trapped, before, after, flushed, aLines, bLines, prepared: prepared.map((p) => p.summaryIndex), freedCode, same: a.toJSONL().startsWith(before[0].log) }));
})();
`;

test("live Sessions survive a reset: same log, context and unflushed lines, and they keep working", () => {
  const out = execFileSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 120_000 });
  const r = JSON.parse(out.trim().split("\n").pop());
  assert.equal(r.trapped, "INTERNAL");
  assert.deepEqual(r.after, r.before);
  assert.equal(r.before[0].messages.length, 6);
  assert.equal(r.before[1].messages.length, 8);
  // a's flush gives exactly the lines after the earlier flush; b's the line of turn 3's two messages.
  assert.equal(r.flushed + r.aLines, r.before[0].log);
  assert.equal(r.bLines.trim().split("\n").length, 2);
  assert.ok(r.before[1].log.endsWith(r.bLines));
  assert.deepEqual(r.prepared, [0, 0]);
  assert.equal(r.same, true);
  assert.equal(r.freedCode, "DISPOSED");
});
