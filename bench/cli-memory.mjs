// The CLI's memory (issue 23, point 10): `compact <file> --out <file>` of inputs of about 200 MB
// made at run time by replicating the fixtures (bench/cli-memory-inputs.mjs: a Claude Code session,
// a context-compaction session log, a pi session, a JSON array of messages), each in its own
// process; the figure is the peak RSS over the baseline (compact of a 10 KB Claude Code file) per
// byte of input. The inputs go to os.tmpdir() and are removed after.
//   node bench/cli-memory.mjs                   every kind at 200 MB
//   SIZE_MB=40 KINDS=claude-code,session node bench/cli-memory.mjs
// Prints a Markdown table; docs/BENCHMARKS.md ("CLI memory") holds its last figures.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { KINDS, generate, peakRss } from "./cli-memory-inputs.mjs";

const sizeMb = Number(process.env.SIZE_MB ?? 200);
const kinds = process.env.KINDS ? process.env.KINDS.split(",") : KINDS;
const dir = mkdtempSync(join(tmpdir(), "cli-memory-"));
const mib = (n) => (n / 2 ** 20).toFixed(0);

try {
  const base = peakRss(["compact", "tests/fixtures/claude-code/short.jsonl", "--out", join(dir, "short.log.jsonl")]);
  if (base.status !== 0) throw new Error(`baseline run failed: ${base.stderr}`);
  console.log(`baseline (compact of a 10 KB file): ${mib(base.peak)} MiB\n`);
  console.log("| input | size (MiB) | peak RSS (MiB) | over the baseline ÷ input | seconds |");
  console.log("|---|---|---|---|---|");
  for (const kind of kinds) {
    const file = join(dir, `${kind}.input`);
    const size = generate(kind, sizeMb * 2 ** 20, file);
    const start = Date.now();
    const run = peakRss(["compact", file, "--out", join(dir, `${kind}.log.jsonl`)]);
    const seconds = ((Date.now() - start) / 1000).toFixed(1);
    if (run.status !== 0) throw new Error(`${kind}: compact failed: ${run.stderr}`);
    const ratio = ((run.peak - base.peak) / size).toFixed(2);
    console.log(`| ${kind} | ${mib(size)} | ${mib(run.peak)} | ${ratio} | ${seconds} |`);
    rmSync(file, { force: true });
    rmSync(join(dir, `${kind}.log.jsonl`), { force: true });
  }
  console.log(`\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(", ")}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
