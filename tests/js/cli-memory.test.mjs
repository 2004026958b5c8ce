// `compact` of a ~40 MB input of each kind (the fixtures replicated at run time into tests/.tmp,
// never committed: bench/cli-memory-inputs.mjs) peaks at a small multiple of its input: the file is
// read a piece at a time into the Session, each message's original object is kept as its JSON text
// and a compaction's snapshot shares the messages' parts, the trap guard copies the log as UTF-8
// bytes (without holding the answers it copied them from), and the pieces read and written are
// strings small enough to die young. The figure is the peak RSS over the baseline (compact of a
// tiny file) per byte of input; each limit is the figure measured with about 25% of room for the
// machine's noise (docs/BENCHMARKS.md, "CLI memory"); the figures before, in parentheses.
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { generate, peakRss, root } from "../../bench/cli-memory-inputs.mjs";

const LIMITS = {
  "claude-code": 4.7, // 3.77 (3.81; 6.64 when the file was read whole)
  session: 8.1, // 6.51 (7.74, 8.0 on the day of the change)
  pi: 5.8, // 4.67 (5.73)
  array: 8.6, // 6.87 (7.91)
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
