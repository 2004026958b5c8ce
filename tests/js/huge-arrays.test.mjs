// Huge and holey message arrays never end the process: `compact` and `maybeCompact` convert their
// messages in the call itself, so a failure of the instance there (out of memory) is caught by the
// trap guard and rejects with a CompactionError; nothing is left to trap later inside the promise.
// Run in a child process, which must exit 0 having printed each call's error code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(new URL("../../js/node.mjs", import.meta.url));
const script = `
import { Compactor, CompactionError } from ${JSON.stringify(entry)};
const summarize = async () => "summary";
const codes = [];
for (const [name, messages] of [["compact", new Array(1e7)], ["maybeCompact", new Array(9e6)], ["compact", [{ role: "user", content: "x" }, undefined]]]) {
  const c = new Compactor({ contextWindow: 8000, summarize });
  try {
    await c[name](messages);
    codes.push(name + ":resolved");
  } catch (error) {
    codes.push(name + ":" + (error instanceof CompactionError ? error.code : "not a CompactionError"));
  }
}
// The instance works afterwards.
const c = new Compactor({ contextWindow: 8000, summarize });
codes.push("after:" + c.check([{ role: "user", content: "hello" }]).shouldCompact);
console.log(JSON.stringify(codes));
`;

test("compact and maybeCompact on huge holey arrays reject with a CompactionError; the process lives on", () => {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 300_000 });
  const codes = JSON.parse(out.trim().split("\n").pop());
  assert.equal(codes.length, 4);
  for (const c of codes.slice(0, 3)) assert.match(c, /^(compact|maybeCompact):(INVALID_INPUT|INTERNAL)$/, c);
  assert.equal(codes[2], "compact:INVALID_INPUT");
  assert.equal(codes[3], "after:false");
});

// Twelve messages of 400 MB (cheap here: `repeat` makes a rope the refusal never flattens) and an
// array of 2^32 − 1 holes are refused at once with INVALID_INPUT: a value holds at most 2^27
// characters of text, an array at most 5,000,000 elements (docs/reliability.md).
const limits = `
import { Compactor, Session, CompactionError, validateMessages } from ${JSON.stringify(entry)};
const codes = [];
const huge = "x".repeat(4e8);
const messages = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: huge }));
const c = new Compactor({ contextWindow: 8000, summarize: async () => "summary" });
const code = async (f) => { try { await f(); return "resolved"; } catch (e) { return e instanceof CompactionError ? e.code + " " + (e.path ?? "") : "not a CompactionError: " + e; } };
codes.push(await code(() => c.compact(messages)));
codes.push(await code(() => new Session({ contextWindow: 8000 }).append(messages)));
const holes = new Array(2 ** 32 - 1);
codes.push(await code(() => c.check(holes)));
codes.push(await code(() => validateMessages(holes)));
codes.push("after:" + c.check([{ role: "user", content: "hello" }]).shouldCompact);
console.log(JSON.stringify(codes));
`;

test("twelve messages of 400 MB and an array of 2^32 - 1 holes are INVALID_INPUT at once; the process lives on", () => {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", limits], { encoding: "utf8", timeout: 120_000 });
  const codes = JSON.parse(out.trim().split("\n").pop());
  assert.deepEqual(codes, [
    "INVALID_INPUT messages[0].content",
    "INVALID_INPUT messages[0].content",
    "INVALID_INPUT messages",
    "INVALID_INPUT messages",
    "after:false",
  ]);
});
