// `compact` of a ~40 MB input of each kind (the fixtures replicated at run time into tests/.tmp,
// never committed: bench/cli-memory-inputs.mjs) peaks at a small multiple of its input: the file is
// read a piece at a time into the Session, each message's original object is kept as its JSON text
// and a compaction's snapshot shares the messages' parts, and the trap guard copies the log as
// UTF-8 bytes. The figure is the peak RSS over the baseline (compact of a tiny file) per byte of
// input; each limit leaves room for the machine's noise above the figure measured (docs/BENCHMARKS.md,
// "CLI memory") and fails the figure before the change (in parentheses).
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { generate, peakRss, root } from "../../bench/cli-memory-inputs.mjs";

const LIMITS = {
  "claude-code": 5.5, // 3.81 (4.01; 6.64 when the file was read whole)
  session: 9.5, // 7.74 (14.46)
  pi: 7.5, // 5.73 (12.60, with every copy's compactions keeping from copy 0 on)
  array: 9.5, // 7.91 (16.09)
};
const scratch = join(root, "tests/.tmp/cli-memory");
mkdirSync(scratch, { recursive: true });
after(() => rmSync(scratch, { recursive: true, force: true }));

let base;
const baseline = () => {
  base ??= peakRss(["compact", "tests/fixtures/claude-code/short.jsonl", "--out", join(scratch, "short.log.jsonl")]);
  assert.equal(base.status, 0, base.stderr);
  return base.peak;
};

for (const [kind, limit] of Object.entries(LIMITS)) {
  test(`compact of a 40 MB ${kind} input peaks under ${limit} bytes per byte of input over the baseline`, () => {
    const file = join(scratch, `${kind}.input`);
    const size = generate(kind, 40 << 20, file);
    const out = join(scratch, `${kind}.log.jsonl`);
    try {
      const run = peakRss(["compact", file, "--out", out]);
      assert.equal(run.status, 0, run.stderr);
      const ratio = (run.peak - baseline()) / size;
      assert.ok(ratio < limit, `peak ${(run.peak / 2 ** 20).toFixed(0)} MiB, baseline ${(base.peak / 2 ** 20).toFixed(0)} MiB: ${ratio.toFixed(2)} bytes per byte of input`);
    } finally {
      rmSync(file, { force: true });
      rmSync(out, { force: true });
    }
  });
}
