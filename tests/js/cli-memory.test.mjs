// `compact` streams its input (bin/cli/stream.mjs): on a generated 200 MB JSON array of messages,
// the CLI's peak resident memory (VmHWM, read from /proc/self/status as the process exits) stays
// under a bound. A memory assertion, not a timing one. The file is written to a temporary directory
// and deleted. Most of the peak is the Session itself (its log holds each message as parsed and as
// its JSON line, about 5× the text) and the compaction's working set; reading the file whole on top
// of that (the text, then every message parsed at once) went past the bound.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { root } from "./pack.mjs";

const cli = join(root, "bin/context-compaction.mjs");
const dir = mkdtempSync(join(tmpdir(), "cc-cli-memory-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const SIZE = 200e6;
/** The multiple of the file's size the peak must stay under: 10.7× measured, 11.75× read whole. */
const BOUND = 11.5;

/** Writes a JSON array of `bytes` of ai-sdk messages, each about `each` characters, a piece at a time. */
function writeArray(path, bytes, each) {
  const fd = openSync(path, "w");
  let written = 0;
  let i = 0;
  const text = (k) => `message ${k} ${"lorem ipsum dolor sit amet ".repeat(Math.ceil(each / 27))}`.slice(0, each);
  writeSync(fd, "[\n");
  let piece = "";
  while (written < bytes) {
    const line = `${i ? ",\n" : ""}${JSON.stringify({ role: i % 2 ? "assistant" : "user", content: text(i) })}`;
    piece += line;
    written += line.length;
    i++;
    if (piece.length > 1 << 20) {
      writeSync(fd, piece);
      piece = "";
    }
  }
  writeSync(fd, `${piece}\n]\n`);
  closeSync(fd);
  return i;
}

test("compact of a 200 MB message array peaks under 11.5× the file in resident memory", () => {
  const input = join(dir, "big.json");
  const count = writeArray(input, SIZE, 200_000);
  const size = statSync(input).size;
  // Prints the peak resident memory as the process exits.
  const probe = join(dir, "hwm.cjs");
  writeFileSync(probe, `process.on("exit", () => { const s = require("fs").readFileSync("/proc/self/status", "utf8"); require("fs").writeSync(2, "\\nHWM " + /VmHWM:\\s+(\\d+)/.exec(s)[1] + "\\n"); });\n`);
  const r = spawnSync(process.execPath, ["-r", probe, cli, "compact", input, "--window", "100000", "--json"], { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 });
  rmSync(input, { force: true });
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.compacted, true);
  assert.equal(report.messages.before, count);
  const peak = Number(/HWM (\d+)/.exec(r.stderr)[1]) * 1024;
  assert.ok(peak < BOUND * size, `peak ${Math.round(peak / 1e6)} MB for a ${Math.round(size / 1e6)} MB file`);
});
