// A trap replaces the WebAssembly instance (js/guard.mjs); store-attached Sessions (`Session.open`)
// survive it like plain ones: the same object keeps its log and live context, and its next commit
// writes exactly what the store did not hold yet (entries, a new conversation's header), nothing
// twice. Real trap, real stores (the embedded SQLite store on a file, the memory store), in a child
// process that must exit 0.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const dir = mkdtempSync(join(tmpdir(), "cc-reset-stored-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const cjs = fileURLToPath(new URL("../../../js/node.cjs", import.meta.url));
const sqlite = fileURLToPath(new URL("../../../js/stores/sqlite.mjs", import.meta.url));

const script = (path) => `
const cc = require(${JSON.stringify(cjs)});
const trap = cc[Symbol.for("context-compaction.trap")];
const turn = (i) => [{ role: "user", content: "question " + i + " " + "word ".repeat(200) }, { role: "assistant", content: "answer " + i + " " + "text ".repeat(200) }];
const options = { contextWindow: 8000, format: "ai-sdk", summarize: "extractive" };
(async () => {
  const { sqliteStore } = await import(${JSON.stringify(sqlite)});
  const out = {};
  for (const [name, store] of [["sqlite", sqliteStore({ path: ${JSON.stringify(path)} })], ["memory", cc.memoryStore()]]) {
    // a: stored, then two messages not committed; fresh: a conversation the store does not hold yet;
    // empty: opened, nothing appended.
    const a = await cc.Session.open(store, "chat", options);
    a.append([...turn(0), ...turn(1)]);
    await a.commit();
    a.append(turn(2));
    const fresh = await cc.Session.open(store, "fresh", options);
    fresh.append(turn(0));
    const empty = await cc.Session.open(store, "empty", options);
    const state = (s) => ({ log: s.toJSONL(), messages: s.render().messages, tokens: s.check().tokens, version: s.storeVersion });
    const before = [a, fresh].map(state);
    let trapped;
    try { trap(); } catch (e) { trapped = e.code; }
    const afterReset = [a, fresh].map(state);
    const commits = [(await a.commit()).appended, (await fresh.commit()).appended, (await a.commit()).appended];
    empty.append(turn(7));
    commits.push((await empty.commit()).appended);
    const reopened = async (id) => { const s = await cc.Session.open(store, id, options); const m = s.render().messages; s.free(); return m; };
    const stored = { a: await reopened("chat"), fresh: await reopened("fresh"), empty: await reopened("empty") };
    // It keeps working: appends, a compaction committed under the lease, and a second session merges it.
    for (let i = 3; i < 20; i++) a.append(turn(i));
    const compacted = (await a.compact()).compacted;
    const other = await cc.Session.open(store, "chat", options);
    out[name] = {
      trapped, before, afterReset, commits, compacted,
      stored: { a: stored.a.length, fresh: stored.fresh.length, empty: stored.empty.length },
      sameA: JSON.stringify(stored.a) === JSON.stringify(before[0].messages),
      sameFresh: JSON.stringify(stored.fresh) === JSON.stringify(before[1].messages),
      merged: JSON.stringify(other.render().messages) === JSON.stringify(a.render().messages),
    };
  }
  console.log(JSON.stringify(out));
})();
`;

test("store-attached Sessions survive a reset: same log, and the next commit writes what the store lacked", () => {
  const output = execFileSync(process.execPath, ["-e", script(join(dir, "reset.sqlite"))], { encoding: "utf8", timeout: 180_000 });
  const all = JSON.parse(output.trim().split("\n").pop());
  for (const name of ["sqlite", "memory"]) {
    const r = all[name];
    assert.equal(r.trapped, "INTERNAL", name);
    assert.deepEqual(r.afterReset, r.before, name);
    assert.equal(r.before[0].messages.length, 6, name);
    // a: turn 2's two messages; fresh: its header and two messages; then nothing left; empty: one turn.
    assert.deepEqual(r.commits, [2, 2, 0, 2], name);
    assert.deepEqual(r.stored, { a: 6, fresh: 2, empty: 2 }, name);
    assert.equal(r.sameA, true, name);
    assert.equal(r.sameFresh, true, name);
    assert.equal(r.compacted, true, name);
    assert.equal(r.merged, true, name);
  }
});
