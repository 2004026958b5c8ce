// A summarizer answer (or a summary onBeforeCompaction supplies) longer than a summary may hold
// (4 Mi characters, docs/reliability.md) is refused before it is copied into the module: the
// compaction rejects with SUMMARIZER_FAILED, nothing changes, and the process lives on. Run in a
// child process (a runaway answer once could exhaust the module's memory), which must exit 0.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const cjs = fileURLToPath(new URL("../../js/node.cjs", import.meta.url));
const script = `
const cc = require(${JSON.stringify(cjs)});
const turn = (i) => [{ role: "user", content: "question " + i + " " + "word ".repeat(300) }, { role: "assistant", content: "answer " + i + " " + "text ".repeat(300) }];
const history = Array.from({ length: 12 }, (_, i) => turn(i)).flat();
// The longest string V8 makes (about 2^29 characters), and one character past the limit.
const huge = "x".repeat(2 ** 29 - 24);
const over = "y".repeat(2 ** 22 + 1);
const options = (summarize, extra = {}) => ({ contextWindow: 8000, summarize, retries: 0, ...extra });
const outcome = async (run) => {
  try { await run(); return { code: "ok" }; } catch (e) { return { code: e.code, name: e.name, message: e.message }; }
};
(async () => {
  const out = {};
  out.compactor = await outcome(() => new cc.Compactor(options(async () => huge)).compact(history));
  out.object = await outcome(() => new cc.Compactor(options(async () => ({ summary: huge }))).compact(history));
  out.over = await outcome(() => new cc.Compactor(options(async () => over)).compact(history));
  out.hook = await outcome(() => new cc.Compactor(options(async () => "fine", { onBeforeCompaction: async () => ({ summary: huge }) })).compact(history));
  const session = new cc.Session(options(async () => huge));
  session.append(history);
  const before = session.toJSONL();
  out.session = await outcome(() => session.compact({ force: true }));
  out.unchanged = session.toJSONL() === before;
  // The module still works, and an answer within the limit is taken.
  out.after = (await new cc.Compactor(options(async () => "a short summary")).compact(history)).messages.length;
  console.log(JSON.stringify(out));
})();
`;

test("an answer longer than a summary may hold is SUMMARIZER_FAILED, and the process lives on", () => {
  const output = execFileSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 180_000 });
  const r = JSON.parse(output.trim().split("\n").pop());
  for (const key of ["compactor", "object", "over", "hook", "session"]) {
    assert.equal(r[key].code, "SUMMARIZER_FAILED", `${key}: ${r[key].message}`);
    assert.equal(r[key].name, "CompactionError", key);
    assert.match(r[key].message, /over the 4194304 a summary may hold/, key);
  }
  assert.match(r.over.message, /4194305 characters/);
  assert.equal(r.unchanged, true);
  assert.ok(r.after > 0 && r.after < 24);
});
