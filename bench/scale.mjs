// The scale benchmark (issue 23, point 11): histories of tiny messages (a few tokens each) at
// growing sizes, timing each step once per size, so that a quadratic path shows as a ratio far
// above the size ratio. Steps: the first Compactor.check (every message converted), a forced
// compact, Session.append of the whole history then prepare(), and validateMessages.
//   node bench/scale.mjs                 sizes 250k, 500k, 1M (validateMessages 75k, 150k, 300k)
//   SCALE=0.1 node bench/scale.mjs        the same sizes × 0.1 (a quick look)
//   RUNS=3 node bench/scale.mjs           each step run 3 times per size, the median kept
// Prints a Markdown table: per step, the time at each size and the ratio of each time to the one
// before (linear work doubles when the size doubles), the same for the process's CPU time, then
// the machine's load average (the machine may be shared). docs/BENCHMARKS.md holds its last figures.
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { Compactor, Session, validateMessages } from "../js/node.mjs";
import { fmt } from "./stats.mjs";
import { history } from "./scale-history.mjs";

const scale = Number(process.env.SCALE ?? 1);
const runs = Number(process.env.RUNS ?? 1);
const sizes = [250_000, 500_000, 1_000_000].map((n) => Math.round(n * scale));
const validateSizes = [75_000, 150_000, 300_000].map((n) => Math.round(n * scale));

const options = { contextWindow: 200_000, keepRecentTokens: 20_000, summarize: "extractive" };

/** The CPU time of the process (all its threads: the garbage collector's too) per timed call, in
 * the order of the wall times: on a shared machine it moves less than the wall time. */
const cpu = [];

async function time(f) {
  const start = performance.now();
  const before = process.cpuUsage();
  await f();
  const used = process.cpuUsage(before);
  cpu.push((used.user + used.system) / 1000);
  return performance.now() - start;
}

/** The median of `runs` times of `step` on `messages`. */
async function median(step, messages) {
  const times = [];
  for (let r = 0; r < runs; r++) times.push([await step(messages), cpu.pop()]);
  times.sort((a, b) => a[0] - b[0]);
  // Progress on stderr (a run at the full sizes takes minutes on a busy machine).
  console.error(`${messages.length} messages: ${times.map(([t]) => t.toFixed(0)).join(", ")} ms`);
  return times[Math.floor(times.length / 2)];
}

// Each step frees what it made (a history's cache is hundreds of MB of the instance's memory,
// which the garbage collector would give back only some time later).
const steps = {
  "Compactor.check (first call)": async (m) => {
    const c = new Compactor(options);
    const ms = await time(() => c.check(m));
    c.free();
    return ms;
  },
  "Compactor.compact (forced)": async (m) => {
    const c = new Compactor(options);
    c.check(m);
    const ms = await time(() => c.compact(m, { force: true }));
    c.free();
    return ms;
  },
  "Session.append + prepare": async (m) => {
    const s = new Session(options);
    const ms = await time(async () => {
      s.append(m);
      await s.prepare();
    });
    s.free();
    return ms;
  },
};

const rows = [];
for (const [name, step] of Object.entries(steps)) {
  const times = [];
  for (const n of sizes) times.push(await median(step, history(n)));
  rows.push([name, sizes, times]);
}
const vtimes = [];
for (const n of validateSizes) {
  const m = history(n);
  vtimes.push(await median((x) => time(() => validateMessages(x)), m));
}
rows.push(["validateMessages", validateSizes, vtimes]);

const k = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
const ratios = (xs) => xs.slice(1).map((x, i) => (x / xs[i]).toFixed(2)).join(", ");
console.log("| step | sizes | ms at each size | ratio to the previous size | CPU ms | CPU ratio |");
console.log("|---|---|---|---|---|---|");
for (const [name, ns, pairs] of rows) {
  const wall = pairs.map(([t]) => t);
  const used = pairs.map(([, c]) => c);
  console.log(`| ${name} | ${ns.map(k).join(", ")} | ${wall.map(fmt).join(", ")} | ${ratios(wall)} | ${used.map(fmt).join(", ")} | ${ratios(used)} |`);
}
console.log(`\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(", ")} (${runs} run${runs > 1 ? "s" : ""} per size)`);
