// The scale benchmark (issue 23, point 11): histories of tiny messages (a few tokens each) at
// growing sizes, timing each step once per size, so that a quadratic path shows as a ratio far
// above the size ratio. Steps: the first Compactor.check (every message converted), a forced
// compact, Session.append of the whole history then prepare(), and validateMessages.
//   node bench/scale.mjs                 sizes 250k, 500k, 1M (validateMessages 75k, 150k, 300k)
//   SCALE=0.1 node bench/scale.mjs        the same sizes × 0.1 (a quick look)
// Prints a Markdown table: per step, the time at each size and the ratio of each time to the one
// before (linear work doubles when the size doubles). docs/BENCHMARKS.md holds its last figures.
import { performance } from "node:perf_hooks";
import { Compactor, Session, validateMessages } from "../js/node.mjs";
import { fmt } from "./stats.mjs";

const scale = Number(process.env.SCALE ?? 1);
const sizes = [250_000, 500_000, 1_000_000].map((n) => Math.round(n * scale));
const validateSizes = [75_000, 150_000, 300_000].map((n) => Math.round(n * scale));

/** `n` AI SDK messages of a few tokens: user and assistant turns, every fourth turn a tool call. */
function history(n) {
  const out = [];
  for (let i = 0; out.length < n; i++) {
    out.push({ role: "user", content: `q${i}` });
    if (i % 4 === 3) {
      out.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "ls", input: {} }] });
      out.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `c${i}`, toolName: "ls", output: { type: "text", value: "ok" } }] });
    }
    out.push({ role: "assistant", content: `a${i}` });
  }
  return out.slice(0, n);
}

const options = { contextWindow: 200_000, keepRecentTokens: 20_000, summarize: "extractive" };

async function time(f) {
  const start = performance.now();
  await f();
  return performance.now() - start;
}

const steps = {
  "Compactor.check (first call)": (m) => time(() => new Compactor(options).check(m)),
  "Compactor.compact (forced)": async (m) => {
    const c = new Compactor(options);
    c.check(m);
    return time(() => c.compact(m, { force: true }));
  },
  "Session.append + prepare": (m) => time(async () => {
    const s = new Session(options);
    s.append(m);
    await s.prepare();
  }),
};

const rows = [];
for (const [name, step] of Object.entries(steps)) {
  const times = [];
  for (const n of sizes) times.push(await step(history(n)));
  rows.push([name, sizes, times]);
}
const vtimes = [];
for (const n of validateSizes) {
  const m = history(n);
  vtimes.push(await time(() => validateMessages(m)));
}
rows.push(["validateMessages", validateSizes, vtimes]);

const k = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
console.log("| step | sizes | ms at each size | ratio to the previous size |");
console.log("|---|---|---|---|");
for (const [name, ns, times] of rows) {
  const ratios = times.slice(1).map((t, i) => (t / times[i]).toFixed(2));
  console.log(`| ${name} | ${ns.map(k).join(", ")} | ${times.map(fmt).join(", ")} | ${ratios.join(", ")} |`);
}
