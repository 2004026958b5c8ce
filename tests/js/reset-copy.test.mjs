// A trap replaces the WebAssembly instance (js/guard.mjs), and live Sessions come back from the
// copy of their logs the guard keeps in JS, never from the trapped instance: here every call into
// each instance is counted (WebAssembly.Instance is wrapped before the package loads), and after
// the trap the old instance's memory is overwritten with garbage; the old instance must see no
// call after the trap, and the sessions must still answer as before: log, render, entries, the
// lines not flushed, a session whose log outgrew one copy call (1 MiB), one read from a session
// file, a branch, store-attached ones, and one whose compaction was running at the trap (it comes
// back as of its last complete call). Real trap, in a child process that must exit 0.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { fixturePath } from "./fixtures.mjs";

const cjs = fileURLToPath(new URL("../../js/node.cjs", import.meta.url));
const pi = fixturePath("pi/large-session.jsonl");

const script = `
// Every instance's exports, each call counted; the count at the trap kept.
const instances = [];
const Instance = WebAssembly.Instance;
WebAssembly.Instance = function (module, imports) {
  const real = new Instance(module, imports);
  const record = { calls: 0, atTrap: undefined, memory: real.exports.memory };
  instances.push(record);
  const exports = {};
  for (const [name, value] of Object.entries(real.exports)) {
    exports[name] = typeof value !== "function" ? value : function (...args) {
      record.calls += 1;
      if (name === "__trap") record.atTrap = record.calls;
      return value.apply(this, args);
    };
  }
  return { exports };
};
const fs = require("node:fs");
const cc = require(${JSON.stringify(cjs)});
const trap = cc[Symbol.for("context-compaction.trap")];
const turn = (i, n = 200) => [{ role: "user", content: "question " + i + " " + "word ".repeat(n) }, { role: "assistant", content: "answer " + i + " " + "text ".repeat(n) }];
const options = { contextWindow: 8000, summarize: "extractive" };
(async () => {
  const plain = new cc.Session(options);
  plain.append([...turn(0), ...turn(1)]);
  const flushed = plain.flush();
  plain.append(turn(2));
  plain.addNote("remember the blue door");
  // One append of 3 MB: its copy takes several calls (1 MiB each).
  const big = new cc.Session({ contextWindow: 10_000_000, summarize: "extractive" });
  big.append(Array.from({ length: 30 }, (_, i) => turn(i, 10_000)).flat());
  const loaded = cc.Session.fromSessionFile(fs.readFileSync(${JSON.stringify(pi)}, "utf8"), "pi", options);
  const branch = plain.branch(plain.entries()[1].id);
  branch.append(turn(9));
  const compacted = new cc.Session(options);
  for (let i = 0; i < 12; i++) compacted.append(turn(i));
  await compacted.compact();
  compacted.append(turn(20));
  // A compaction running when the trap hits: its summarizer traps (later, outside wasm frames).
  const summarize = async () => { await new Promise((r) => setTimeout(r, 10)); try { trap(); } catch {} return "never"; };
  const midCall = new cc.Session({ contextWindow: 8000, summarize, timeoutMs: 2000 });
  for (let i = 0; i < 12; i++) midCall.append(turn(i));
  const midBefore = midCall.toJSONL();
  const store = cc.memoryStore();
  const stored = await cc.Session.open(store, "chat", { ...options, format: "ai-sdk" });
  stored.append([...turn(0), ...turn(1)]);
  await stored.commit();
  stored.append(turn(2));
  const sessions = { plain, big, loaded, branch, compacted, stored };
  const state = (s) => ({ log: s.toJSONL(), messages: s.render().messages, tokens: s.check().tokens, entries: s.entries(), memory: s.memory() });
  const before = Object.fromEntries(Object.entries(sessions).map(([k, s]) => [k, state(s)]));
  const midCode = await midCall.compact().then(() => "resolved", (e) => e.code);
  const old = instances[0];
  // The trapped instance's memory is garbage from now on.
  new Uint8Array(old.memory.buffer).fill(0xa5);
  const after = Object.fromEntries(Object.entries(sessions).map(([k, s]) => [k, state(s)]));
  const plainLines = plain.flush();
  const midAfter = midCall.toJSONL();
  const commit = await stored.commit();
  const reopened = await cc.Session.open(store, "chat", { ...options, format: "ai-sdk" });
  // They keep working.
  for (let i = 30; i < 50; i++) for (const s of [plain, branch, midCall]) s.append(turn(i));
  const prepared = (await plain.prepare()).summaryIndex;
  console.log(JSON.stringify({
    instances: instances.length, oldCalls: old.calls, atTrap: old.atTrap, midCode, midSame: midAfter === midBefore,
    same: Object.keys(sessions).filter((k) => JSON.stringify(after[k]) === JSON.stringify(before[k])),
    bigLog: before.big.log.length, flushed, plainLines, plainLog: before.plain.log,
    appended: commit.appended, reopened: JSON.stringify(reopened.render().messages) === JSON.stringify(before.stored.messages),
    prepared, compactedHasSummary: before.compacted.entries.some((e) => e.type === "compaction"),
  }));
})();
`;

test("Sessions come back from the JS copy after a trap: the trapped instance is never called again", () => {
  const out = execFileSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 180_000, maxBuffer: 1 << 26 });
  const r = JSON.parse(out.trim().split("\n").pop());
  assert.equal(r.midCode, "INTERNAL");
  assert.equal(r.instances, 2);
  assert.equal(typeof r.atTrap, "number");
  assert.equal(r.oldCalls, r.atTrap, "calls into the trapped instance after the trap");
  assert.deepEqual(r.same, ["plain", "big", "loaded", "branch", "compacted", "stored"]);
  assert.ok(r.bigLog > 2 * (1 << 20), `the big log holds ${r.bigLog} characters`);
  assert.ok(r.compactedHasSummary);
  // The lines not flushed before the trap come out of the next flush, exactly once.
  assert.equal(r.flushed + r.plainLines, r.plainLog);
  // The session whose compaction the trap cut is as of its last complete call.
  assert.equal(r.midSame, true);
  // The store session's next commit writes what the store lacked: turn 2's two messages.
  assert.equal(r.appended, 2);
  assert.equal(r.reopened, true);
  assert.equal(r.prepared, 0);
});
