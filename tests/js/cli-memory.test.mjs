// `compact` of a ~40 MB Claude Code session (the fixture replicated at run time into tests/.tmp,
// never committed) peaks at a small multiple of its input: its pieces are read a line at a time
// into the Session (Session.fromSessionFile over an iterable), never joined into one text. The
// peak RSS over the baseline (compact of a tiny file) per byte of input was 6.6 when the file was
// read whole; the limit below fails that and leaves room for the machine's noise.
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { generate, peakRss, root } from "../../bench/cli-memory-inputs.mjs";

const LIMIT = 5.5;
const scratch = join(root, "tests/.tmp/cli-memory");
mkdirSync(scratch, { recursive: true });
after(() => rmSync(scratch, { recursive: true, force: true }));

test("compact of a 40 MB Claude Code session peaks under 5.5 bytes per byte of input over the baseline", () => {
  const base = peakRss(["compact", "tests/fixtures/claude-code/short.jsonl", "--out", join(scratch, "short.log.jsonl")]);
  assert.equal(base.status, 0, base.stderr);
  const file = join(scratch, "session.jsonl");
  const size = generate("claude-code", 40 << 20, file);
  const out = join(scratch, "session.log.jsonl");
  const run = peakRss(["compact", file, "--out", out]);
  assert.equal(run.status, 0, run.stderr);
  const ratio = (run.peak - base.peak) / size;
  assert.ok(ratio < LIMIT, `peak ${(run.peak / 2 ** 20).toFixed(0)} MiB, baseline ${(base.peak / 2 ** 20).toFixed(0)} MiB: ${ratio.toFixed(2)} bytes per byte of input`);
});
