// A trap replaces the WebAssembly instance (js/guard.mjs); live Sessions with unsaved appends
// survive it: each is re-created in the fresh instance from its log, behind the same object, so
// its log, entries, live context and unflushed lines are what they were, and it keeps working
// (sessions made by `new`, `fromJSONL` and `branch`); store-attached ones in
// tests/js/stores/reset-stored.test.mjs.
// Run in a child process, which must exit 0.
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
  const c = a.branch(a.entries()[1].id);
  c.append(turn(9));
  const stored = await cc.Session.open(cc.memoryStore(), "chat", options);
  stored.append(turn(0));
  const sessions = [a, b, c];
  const state = (s) => ({ log: s.toJSONL(), messages: s.render().messages, tokens: s.check().tokens, entries: s.entries() });
  const before = sessions.map(state);
  let trapped;
  try { trap(); } catch (e) { trapped = e.code; }
  const after = sessions.map(state);
  // The lines a had not flushed are still to be flushed; b (read from a log) had flushed nothing new but turn 3.
  const aLines = a.flush();
  const bLines = b.flush();
  // They keep working: appends, a prepare and a compact that compact.
  for (let i = 5; i < 25; i++) for (const s of sessions) s.append(turn(i));
  const prepared = await Promise.all([a.prepare(), b.prepare()]);
  const compacted = (await c.compact()).compacted;
  const code = (f) => { try { f(); return "ok"; } catch (e) { return e.code; } };
  const freedCode = code(() => freed.check());
  const storedCode = code(() => stored.render().messages.length);
  console.log(JSON.stringify({ trapped, before, after, flushed, aLines, bLines, prepared: prepared.map((p) => p.summaryIndex), compacted, freedCode, storedCode, same: a.toJSONL().startsWith(before[0].log) }));
})();
`;

test("live Sessions survive a reset: same log, context and unflushed lines, and they keep working", () => {
  const out = execFileSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 120_000 });
  const r = JSON.parse(out.trim().split("\n").pop());
  assert.equal(r.trapped, "INTERNAL");
  assert.deepEqual(r.after, r.before);
  assert.equal(r.before[0].messages.length, 6);
  assert.equal(r.before[1].messages.length, 8);
  assert.equal(r.before[2].messages.length, 4);
  // a's flush gives exactly the lines after the earlier flush; b's the line of turn 3's two messages.
  assert.equal(r.flushed + r.aLines, r.before[0].log);
  assert.equal(r.bLines.trim().split("\n").length, 2);
  assert.ok(r.before[1].log.endsWith(r.bLines));
  assert.deepEqual(r.prepared, [0, 0]);
  assert.equal(r.compacted, true);
  assert.equal(r.same, true);
  // A freed session stays freed; a store-attached one survives too (tests/js/stores/reset-stored.test.mjs).
  assert.equal(r.freedCode, "DISPOSED");
  assert.equal(r.storedCode, "ok");
});

// free() of an object made before the reset must not reach the fresh instance: the fresh
// instance allocates in the same order, so the old pointer names a live object there.
const freeScript = `
const cc = require(${JSON.stringify(cjs)});
const trap = cc[Symbol.for("context-compaction.trap")];
const options = { contextWindow: 8000, summarize: "extractive" };
const old = new cc.Compactor(options);
try { trap(); } catch {}
const fresh = new cc.Compactor(options);
old.free();
old[Symbol.dispose]();
new cc.Compactor({ ...options, contextWindow: 9000 });
let threshold;
try { threshold = fresh.check([{ role: "user", content: "hi" }]).threshold; } catch (e) { threshold = e.code; }
console.log(JSON.stringify({ threshold, expected: new cc.Compactor(options).check([{ role: "user", content: "hi" }]).threshold }));
`;

test("free() of an object made before a reset does nothing to the fresh instance's objects", () => {
  const out = execFileSync(process.execPath, ["-e", freeScript], { encoding: "utf8", timeout: 60_000 });
  const r = JSON.parse(out.trim().split("\n").pop());
  assert.equal(typeof r.expected, "number");
  assert.equal(r.threshold, r.expected);
});
