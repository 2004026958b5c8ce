// The steps of a long history do not grow the instance's memory page by page (issue 23, point 11).
// Past 64 MiB every `memory.grow` costs V8 a full garbage collection of the caller's heap, so a
// step that grew the memory 64 KiB at a time took time quadratic in the history's length. The
// observable without timing: the full collections (`Mark-Compact` under `--trace-gc`) that one
// step costs a child process holding 150k tiny messages. Page by page, `check` made about 20,
// `compact` about 35 and `Session.append` + `prepare` about 190; growing ahead, each makes a few.
// The speed itself is in bench/scale.mjs and docs/BENCHMARKS.md.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(new URL("../../js/node.mjs", import.meta.url));
const history = fileURLToPath(new URL("../../bench/scale-history.mjs", import.meta.url));

/** The full collections during `step` (check, compact or session) on `n` messages. */
function fullCollections(step, n) {
  const script = `
import { Compactor, Session } from ${JSON.stringify(entry)};
import { history } from ${JSON.stringify(history)};
const options = { contextWindow: 200_000, keepRecentTokens: 20_000, summarize: "extractive" };
const m = history(${n});
const c = new Compactor(options);
if (${JSON.stringify(step)} === "compact") c.check(m);
console.log("-- start");
if (${JSON.stringify(step)} === "check") c.check(m);
if (${JSON.stringify(step)} === "compact") await c.compact(m, { force: true });
if (${JSON.stringify(step)} === "session") { const s = new Session(options); s.append(m); await s.prepare(); }
console.log("-- end");
`;
  const out = execFileSync(process.execPath, ["--trace-gc", "--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 600_000,
    maxBuffer: 64 << 20,
  });
  const during = out.slice(out.indexOf("-- start"), out.indexOf("-- end"));
  return during.split("\n").filter((line) => line.includes("Mark-Compact")).length;
}

for (const step of ["check", "compact", "session"]) {
  test(`${step} on 150k tiny messages makes a few full collections, not one per grown page`, () => {
    const n = fullCollections(step, 150_000);
    assert.ok(n <= 12, `${n} full collections`);
  });
}
