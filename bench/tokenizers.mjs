// Exact counting against the JS tokenizers: throughput on the 1M-token workload (o200k_base and
// cl100k_base, counts checked against OpenAI's tiktoken), pathological inputs, cold start to the
// first o200k count in a fresh Node process, and memory after counting. Returns markdown lines for
// docs/BENCHMARKS.md; called by bench/run.mjs.
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { history, textOf } from "./workload.mjs";

const ENCODINGS = ["o200k_base", "cl100k_base"];
const PACKAGE = new URL("../js/node.mjs", import.meta.url).href;
const WORKLOAD = new URL("./workload.mjs", import.meta.url).href;
const BENCH_DIR = new URL(".", import.meta.url).pathname;
/** A process still busy this long (loading included) on a pathological input is stopped. */
const PATHOLOGICAL_TIMEOUT_MS = 10_000;

/** Module code that defines `count(text)` for tokenizer `lib` and encoding `enc`. */
function loader(lib, enc) {
  switch (lib) {
    case "context-compaction":
      return `const cc = await import(${JSON.stringify(PACKAGE)}); const count = (s) => cc.countTokens(s, ${JSON.stringify(enc)});`;
    case "gpt-tokenizer":
      return `const { countTokens: count } = await import("gpt-tokenizer/encoding/${enc}");`;
    case "ai-tokenizer":
      return `const { Tokenizer } = await import("ai-tokenizer"); const t = new Tokenizer(await import("ai-tokenizer/encoding/${enc}")); const count = (s) => t.count(s);`;
    case "js-tiktoken":
      return `const { Tiktoken } = await import("js-tiktoken/lite"); const t = new Tiktoken((await import("js-tiktoken/ranks/${enc}")).default); const count = (s) => t.encode(s).length;`;
    case "tiktoken":
      return `const { get_encoding } = await import("tiktoken"); const e = get_encoding(${JSON.stringify(enc)}); const count = (s) => e.encode_ordinary(s).length;`;
    default:
      throw new Error(lib);
  }
}
const JS_LIBS = ["gpt-tokenizer", "ai-tokenizer", "js-tiktoken", "tiktoken"];
const LIBS = ["context-compaction", ...JS_LIBS];

/** Runs `code` (an ES module) in a fresh Node process from bench/; its last stdout line as JSON. */
function fresh(code, timeout = 120_000) {
  const run = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", code], {
    cwd: BENCH_DIR,
    encoding: "utf8",
    timeout,
  });
  if (run.error?.code === "ETIMEDOUT" || run.signal) return { timedOut: true };
  if (run.status !== 0) throw new Error(`child failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").pop());
}

/** `count(text)` of every tokenizer for `enc`, in this process. */
async function counters(enc) {
  const cc = await import(PACKAGE);
  const { countTokens: gpt } = await import(`gpt-tokenizer/encoding/${enc}`);
  const { Tokenizer } = await import("ai-tokenizer");
  const ai = new Tokenizer(await import(`ai-tokenizer/encoding/${enc}`));
  const { Tiktoken } = await import("js-tiktoken/lite");
  const js = new Tiktoken((await import(`js-tiktoken/ranks/${enc}`)).default);
  const { get_encoding } = await import("tiktoken");
  const tt = get_encoding(enc);
  return {
    "context-compaction": (s) => cc.countTokens(s, enc),
    "gpt-tokenizer": (s) => gpt(s),
    "ai-tokenizer": (s) => ai.count(s),
    "js-tiktoken": (s) => js.encode(s).length,
    tiktoken: (s) => tt.encode_ordinary(s).length,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mbps = (bytes, ms) => bytes / ms / 1e3;
const f1 = (x) => x.toFixed(1);

/** Throughput on the texts of the 1M-token workload, counted one message at a time. */
async function throughput(texts, bytes) {
  const rows = [];
  for (const enc of ENCODINGS) {
    const count = await counters(enc);
    const reference = texts.map((t) => count.tiktoken(t));
    const row = { enc, tokens: reference.reduce((a, b) => a + b, 0), libs: {} };
    for (const lib of LIBS) {
      let mismatches = 0;
      texts.forEach((t, i) => (mismatches += count[lib](t) === reference[i] ? 0 : 1)); // also the warm-up
      const times = [];
      for (let r = 0; r < 5; r += 1) {
        globalThis.gc?.();
        const t0 = performance.now();
        for (const t of texts) count[lib](t);
        times.push(performance.now() - t0);
      }
      row.libs[lib] = { ms: median(times), mbps: mbps(bytes, median(times)), mismatches };
    }
    rows.push(row);
    console.log(`exact counting ${enc}: ${Object.entries(row.libs).map(([k, v]) => `${k} ${f1(v.mbps)} MB/s`).join(", ")}`);
  }
  return rows;
}

const PATHOLOGICAL = [
  ["'x' × 100,000", `"x".repeat(100_000)`],
  ["40,000 CJK characters", `"漢字かな交じり文".repeat(5_000)`],
  ["one 60,000-character '=' line", `"=".repeat(60_000) + "\\n"`],
];

/** Each pathological input counted once per tokenizer in a fresh process (table already loaded). */
function pathological() {
  const rows = [];
  for (const [label, expr] of PATHOLOGICAL) {
    const row = { label, libs: {} };
    for (const enc of ENCODINGS) {
      for (const lib of LIBS) {
        if (enc !== "o200k_base" && lib !== "context-compaction" && lib !== "tiktoken") continue;
        const code = `${loader(lib, enc)} count("warm up"); const text = ${expr}; const t0 = performance.now(); const n = count(text); console.log(JSON.stringify({ ms: performance.now() - t0, n }));`;
        row.libs[`${lib} ${enc}`] = fresh(code, PATHOLOGICAL_TIMEOUT_MS);
      }
    }
    rows.push(row);
    console.log(`pathological ${label}: ${Object.entries(row.libs).map(([k, v]) => `${k} ${v.timedOut ? "timeout" : `${v.ms.toFixed(0)} ms`}`).join(", ")}`);
  }
  return rows;
}

/** Cold start: import, load o200k_base and count once, in a fresh process; median of 5. */
function coldStart() {
  const out = {};
  for (const lib of LIBS) {
    const times = [];
    for (let r = 0; r < 5; r += 1) {
      const code = `const t0 = performance.now(); ${loader(lib, "o200k_base")} count("hello world"); console.log(JSON.stringify({ ms: performance.now() - t0 }));`;
      times.push(fresh(code).ms);
    }
    out[lib] = median(times);
  }
  console.log(`cold start: ${Object.entries(out).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(", ")}`);
  return out;
}

/** Resident memory after counting the 1M-token workload with o200k_base, in a fresh process. */
function memory() {
  const measure = (setup) =>
    fresh(`const { history, textOf } = await import(${JSON.stringify(WORKLOAD)}); const texts = history(1_000_000).map(textOf); ${setup} globalThis.gc(); globalThis.gc(); console.log(JSON.stringify({ rss: process.memoryUsage().rss }));`).rss;
  const out = { baseline: measure("") };
  for (const lib of LIBS) out[lib] = measure(`${loader(lib, "o200k_base")} let n = 0; for (const t of texts) n += count(t);`);
  console.log(`RSS after counting: ${Object.entries(out).map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(0)} MiB`).join(", ")}`);
  return out;
}

/** Runs every measurement: `{ lines }` (the markdown section) and `targets` (issue 12's rows). */
export async function tokenizerSection() {
  const texts = history(1_000_000).map(textOf);
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const speed = await throughput(texts, bytes);
  const patho = pathological();
  const cold = coldStart();
  const rss = memory();
  const lines = ["", "## Exact counting against the JS tokenizers", ""];
  lines.push(`The texts of the 1M-token history (${texts.length.toLocaleString("en-US")} messages, ${f1(bytes / 1e6)} MB of UTF-8), counted one message at a time, tables loaded and warm (after one pass that checks the counts): median of 5 passes. Every count is compared with OpenAI's \`tiktoken\` (npm, \`encode_ordinary\`). Ratio: context-compaction's throughput over the tokenizer's.`, "");
  lines.push("| encoding | tokens | tokenizer | MB/s | context-compaction is | counts equal to tiktoken |");
  lines.push("|---|---|---|---|---|---|");
  for (const row of speed) {
    const ours = row.libs["context-compaction"];
    for (const lib of LIBS) {
      const v = row.libs[lib];
      const vs = lib === "context-compaction" ? "" : `${(ours.mbps / v.mbps).toFixed(1)}× as fast`;
      lines.push(`| ${row.enc} | ${row.tokens.toLocaleString("en-US")} | ${lib} | ${f1(v.mbps)} | ${vs} | ${v.mismatches === 0 ? "all" : `${v.mismatches} messages differ`} |`);
    }
  }
  lines.push("", `### Pathological inputs`, "");
  lines.push(`One count of each input in a fresh process, table loaded; milliseconds. A process still busy ${PATHOLOGICAL_TIMEOUT_MS / 1000} s after it started (loading included) is stopped: \"stopped\". The JS tokenizers with o200k_base only.`, "");
  const columns = Object.keys(patho[0].libs);
  lines.push(`| input | ${columns.join(" | ")} |`);
  lines.push(`|---|${columns.map(() => "---").join("|")}|`);
  for (const row of patho) {
    lines.push(`| ${row.label} | ${columns.map((c) => (row.libs[c].timedOut ? "stopped" : `${row.libs[c].ms.toFixed(0)} (${row.libs[c].n} tokens)`)).join(" | ")} |`);
  }
  lines.push("", "### Cold start and memory", "");
  lines.push("Cold start: from the first `import` to the first o200k_base count returned, in a fresh Node process (module compile, table load and parse included; process start not), median of 5. Memory: resident set size of a fresh process after generating the 1M-token history, loading o200k_base and counting every message, after a full GC; the baseline is the same process without a tokenizer.", "");
  lines.push("| tokenizer | cold start (ms) | RSS after counting (MiB) | over the baseline (MiB) |");
  lines.push("|---|---|---|---|");
  const mib = (b) => (b / 2 ** 20).toFixed(0);
  for (const lib of LIBS) lines.push(`| ${lib} | ${cold[lib].toFixed(0)} | ${mib(rss[lib])} | ${mib(rss[lib] - rss.baseline)} |`);
  lines.push(`| (baseline) | | ${mib(rss.baseline)} | |`);
  const targets = speed.map((row) => {
    const ours = row.libs["context-compaction"];
    const others = LIBS.filter((l) => l !== "context-compaction" && l !== "tiktoken");
    const fastest = others.reduce((a, b) => (row.libs[b].mbps > row.libs[a].mbps ? b : a));
    const x = ours.mbps / row.libs[fastest].mbps;
    return [`exact counting, ${row.enc}, 1M-token history`, "≥ 1.5× the fastest JS tokenizer, counts identical to tiktoken", `${x.toFixed(1)}× ${fastest}; ${ours.mismatches === 0 ? "identical" : `${ours.mismatches} messages differ`}`, x >= 1.5 && ours.mismatches === 0];
  });
  const coldX = cold["context-compaction"] / cold["gpt-tokenizer"];
  targets.push(["cold start to the first o200k count", "≤ 0.5× gpt-tokenizer", `${coldX.toFixed(2)}× (${cold["context-compaction"].toFixed(0)} vs ${cold["gpt-tokenizer"].toFixed(0)} ms)`, coldX <= 0.5]);
  targets.push(["RSS with o200k loaded, after counting the 1M history", "≤ gpt-tokenizer's", `${mib(rss["context-compaction"])} vs ${mib(rss["gpt-tokenizer"])} MiB`, rss["context-compaction"] <= rss["gpt-tokenizer"]]);
  return { lines, targets };
}
