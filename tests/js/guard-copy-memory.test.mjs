// The trap guard's copy of a Session's log (js/guard.mjs) holds the log as UTF-8 bytes, outside
// the JS heap, and nothing else of the answers it copied them from: a log of 32 MB read by
// `Session.fromJSONL` (its copy taken in 1 MiB answers) fits a JS heap limited to 24 MB. Before,
// each staged answer's header was a slice of that answer and held all of it until the copy was
// made: the whole log as strings in the heap at once, and the child ran out of memory. Real heap
// limit, in a child process that must exit 0.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const cjs = fileURLToPath(new URL("../../js/node.cjs", import.meta.url));

const script = `
const cc = require(${JSON.stringify(cjs)});
const words = "word ".repeat(200);
// The log a piece at a time (no string of the whole log): a header, then 32 MB of messages.
function* log() {
  yield '{"type":"session","version":1,"id":"big","format":"ai-sdk"}\\n';
  let bytes = 0;
  for (let i = 0, parent = "null"; bytes < 32 * 2 ** 20; i++) {
    const lines = [];
    for (let k = 0; k < 100; k++, i++) {
      lines.push('{"type":"message","id":"e' + i + '","parentId":' + parent + ',"message":{"role":"user","content":"' + i + " " + words + '"}}');
      parent = '"e' + i + '"';
    }
    const piece = lines.join("\\n") + "\\n";
    bytes += piece.length;
    yield piece;
  }
}
const session = cc.Session.fromJSONL(log(), { contextWindow: 200000, summarize: "extractive" });
const text = session.toJSONLPart(0, 64).text;
if (!text.startsWith('{"type":"session","version":1,"id":"big","format":"ai-sdk"}\\n')) throw new Error("not the log: " + text.slice(0, 200));
process.stdout.write(String(session.entries().length));
`;

test("the guard's copy of a 32 MB log read back holds no string of it in a 24 MB heap", () => {
  const r = spawnSync(process.execPath, ["--max-old-space-size=24", "-e", script], { encoding: "utf8", maxBuffer: 1 << 20 });
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  assert.ok(Number(r.stdout) > 30_000, `entries: ${r.stdout}`);
});
