// `npm run bench`: per-turn cost of keeping a long agent history under the window, side by side
// with recounting it with the JS tokenizers users would otherwise pick, in one run on the same
// generated workloads, then the stores (bench/stores.mjs) and the cost of compactions
// (bench/cost.mjs). Writes docs/BENCHMARKS.md.
// BENCH_ONLY=stores runs the stores section alone and replaces only its part of the file (its
// section and its rows of the Targets table); the peers need not be installed for it.
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { cpus, totalmem } from "node:os";
import { performance } from "node:perf_hooks";
import { Compactor, Session, countTokens } from "../js/node.mjs";
import { history, memoCounter, prng, step, textOf } from "./workload.mjs";
import { cell, fmt, stats } from "./stats.mjs";
import { storeSection } from "./stores.mjs";
import { costSection } from "./cost.mjs";

const ONLY = process.env.BENCH_ONLY ?? "";
if (!["", "stores"].includes(ONLY)) throw new Error(`BENCH_ONLY=${ONLY}: only "stores" is known`);
const DOC = new URL("../docs/BENCHMARKS.md", import.meta.url);
if (ONLY === "stores") {
  writeFileSync(DOC, replaceStores(readFileSync(DOC, "utf8"), await storeSection()));
  console.log("wrote the Stores section of docs/BENCHMARKS.md");
  process.exit(0);
}

// The peers, loaded only for the full run (bench/node_modules, installed by scripts/bench.sh).
const { countTokens: gptCount } = await import("gpt-tokenizer/encoding/o200k_base");
const { Tokenizer } = await import("ai-tokenizer");
const aiO200k = await import("ai-tokenizer/encoding/o200k_base");
const { Tiktoken } = await import("js-tiktoken/lite");
const { default: jsO200k } = await import("js-tiktoken/ranks/o200k_base");
const { peers } = await import("./peers.mjs");
const { fixtureRows } = await import("./fixtures.mjs");
const { tokenizerSection } = await import("./tokenizers.mjs");

const SIZES = [10_000, 100_000, 200_000, 1_000_000];
const STEPS = Number(process.env.BENCH_STEPS ?? 30);
const aiTok = new Tokenizer(aiO200k);
const jsTok = new Tiktoken(jsO200k);


const ratio = (a, b) => (b.median / a.median >= 10 ? (b.median / a.median).toFixed(0) : (b.median / a.median).toFixed(1));

/**
 * Grows a copy of `base` by one agent step per iteration and times `f(messages, newMessages)`
 * on each (after one warm-up call on the base).
 */
function perStep(base, f, steps = STEPS) {
  const rand = prng(99);
  globalThis.gc?.();
  let messages = [...base];
  f(messages, messages);
  const times = [];
  for (let i = 0; i < steps; i += 1) {
    const added = step(rand, 100_000 + i);
    messages = [...messages, ...added];
    const t0 = performance.now();
    f(messages, added);
    times.push(performance.now() - t0);
  }
  return stats(times);
}

function runSize(size) {
  const base = history(size);
  const exactTokens = base.reduce((n, m) => n + countTokens(textOf(m), "o200k_base"), 0);
  const row = { size, messages: base.length, exactTokens };
  const options = { contextWindow: 2_000_000, format: "ai-sdk", summarize: "extractive" };

  for (const tokenizer of ["heuristic", "o200k_base"]) {
    const compactor = new Compactor({ ...options, tokenizer });
    row[`compactor-${tokenizer}`] = perStep(base, (messages) => compactor.check(messages));
    const session = new Session({ ...options, tokenizer });
    session.append(base);
    row[`session-${tokenizer}`] = perStep(base, (_messages, added) => {
      session.append(added);
      session.check();
    });
    // Freed here, so what they hold does not weigh on the measurements that follow.
    compactor.free();
    session.free();
  }
  // Crossing the boundary without the cache: a fresh Compactor converts the whole array.
  row.fresh = perStep(base, (messages) => {
    const fresh = new Compactor({ ...options });
    const result = fresh.check(messages);
    fresh.free();
    return result;
  }, 5);
  row.stringify = perStep(base, (messages) => JSON.parse(JSON.stringify(messages)), 5);

  // JS tokenizers recounting the whole history each step.
  const recount = (count) => (messages) => {
    let n = 0;
    for (const m of messages) n += count(textOf(m));
    return n;
  };
  const few = size >= 1_000_000 ? 3 : 6;
  row["gpt-tokenizer"] = perStep(base, recount((t) => gptCount(t)), few);
  row["ai-tokenizer"] = perStep(base, recount((t) => aiTok.count(t)), few);
  row["js-tiktoken"] = perStep(base, recount((t) => jsTok.encode(t).length), few);
  // The same with a per-message WeakMap memo (only new messages counted).
  row["gpt-tokenizer-memo"] = perStep(base, memoCounter(gptCount, textOf));
  return row;
}

const rows = [];
for (const size of SIZES) {
  const t0 = performance.now();
  const row = runSize(size);
  row.peers = await peers(history(size), { runs: size >= 1_000_000 ? 9 : 15, slowRuns: size >= 1_000_000 ? 3 : 5 });
  rows.push(row);
  console.log(`${size} tokens: ${row.messages} messages, measured in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  for (const [k, v] of Object.entries({ ...row, ...row.peers })) if (v && typeof v === "object" && "median" in v) console.log(`  ${k.padEnd(22)} ${cell(v)} ms`);
}

const fastestRecount = (r) => ["gpt-tokenizer", "ai-tokenizer", "js-tiktoken"].reduce((best, k) => (r[k].median < r[best].median ? k : best), "gpt-tokenizer");
const lines = [];
lines.push("# Benchmarks", "");
lines.push(`Generated by \`npm run bench\` (bench/run.mjs) on ${new Date().toISOString().slice(0, 10)}: ${cpus()[0]?.model ?? "unknown CPU"}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}. Times in milliseconds: median (p10–p90) over ${STEPS} steps (fewer for the slow recounts); against the peers, over at least 3 to 15 runs and on until 1 s has passed (at most 100 runs), so that fast and slow measurements span comparable stretches of this shared machine's drifting speed. Workloads: bench/workload.mjs, deterministic AI SDK coding-agent histories (multi-tool turns, code and logs as tool outputs, a few outputs over 100 KB, some CJK).`, "");
lines.push("## Per turn at growing history: append + check", "");
lines.push("Each step appends one agent step (an assistant message with 1–3 tool calls and their results) and asks whether to compact. `Session.append` + `check` and the stateless `Compactor.check` (identity cache, the whole array passed each step as AI SDK `prepareStep` does) against recounting the history with the fastest JS tokenizer of the run.", "");
lines.push("| history | messages | Session heuristic | Session o200k | Compactor heuristic | Compactor o200k | recount, fastest JS tokenizer | Session o200k vs recount | Compactor o200k vs recount |");
lines.push("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  const best = fastestRecount(r);
  lines.push(`| ${r.exactTokens.toLocaleString("en-US")} tokens | ${r.messages} | ${cell(r["session-heuristic"])} | ${cell(r["session-o200k_base"])} | ${cell(r["compactor-heuristic"])} | ${cell(r["compactor-o200k_base"])} | ${cell(r[best])} (${best}) | ${ratio(r["session-o200k_base"], r[best])}× faster | ${ratio(r["compactor-o200k_base"], r[best])}× faster |`);
}
lines.push("", "Reading the figures: the per-step cost stays flat from 10k to 1M tokens, because only the new step is converted and counted. With o200k it adds counting the step's new text exactly (about 3.5 KB a step here). The p90 tails at 1M tokens are V8 garbage collections of the benchmark's own large arrays landing inside a timed step. A plain JS WeakMap memo over gpt-tokenizer is the cheapest way to keep a running count, but it neither plans nor compacts; the figures above include everything `check` decides (tokens, turns, messages, the trigger).");
lines.push("", "## The JS tokenizers recounting the history, and with a per-message memo", "");
lines.push("| history | gpt-tokenizer | ai-tokenizer | js-tiktoken | gpt-tokenizer + WeakMap memo |");
lines.push("|---|---|---|---|---|");
for (const r of rows) lines.push(`| ${r.exactTokens.toLocaleString("en-US")} | ${cell(r["gpt-tokenizer"])} | ${cell(r["ai-tokenizer"])} | ${cell(r["js-tiktoken"])} | ${cell(r["gpt-tokenizer-memo"])} |`);
lines.push("", "## Crossing the boundary", "");
lines.push("How a call's messages reach Rust. A fresh `Compactor` converts every message (unseen messages cross together as the JSON bytes of one array; what every call paid before the identity cache); `JSON.parse(JSON.stringify(messages))` is the floor of a JSON-string transfer (the Rust-side parse not counted); the identity cache walks the array in JS against a `WeakMap` and converts only unseen objects.", "");
lines.push("| history | fresh Compactor (every message converted) | JSON round trip alone | identity cache (Compactor heuristic check) |");
lines.push("|---|---|---|---|");
for (const r of rows) lines.push(`| ${r.exactTokens.toLocaleString("en-US")} | ${cell(r.fresh)} | ${cell(r.stringify)} | ${cell(r["compactor-heuristic"])} |`);
lines.push("", "The cache wins by two to three orders of magnitude at 1M tokens, and a JSON string would cost more than the conversion it replaces before Rust even parses it, so the package converts each message once, when first seen.", "");
lines.push(...peerSection(rows));
lines.push(...fixtureSection(fixtureRows()));
const tokenizers = await tokenizerSection();
lines.push(...tokenizers.lines);
const stores = await storeSection();
lines.push(...stores.lines);
lines.push("", ...(await costSection()));
// The Scale section is written by hand from `node bench/scale.mjs` (minutes per run): kept as it is.
const previous = readFileSync(DOC, "utf8").split("\n");
const scale = previous.indexOf("## Scale (issue 23)");
if (scale !== -1) {
  const end = previous.findIndex((l, i) => i > scale && l.startsWith("## "));
  lines.push("", ...previous.slice(scale, end === -1 ? undefined : end).join("\n").trimEnd().split("\n"));
}
lines.splice(4, 0, ...targetSection(rows, tokenizers.targets, stores.targets));
writeFileSync(DOC, `${lines.join("\n")}\n`);

/** The section against pi, LangChain and the AI SDK: one table per job, a ratio per size. */
function peerSection(rows) {
  const out = ["## Against pi, LangChain and the AI SDK", ""];
  out.push("The same histories, given to each library in its own message format (pi session entries built from `convertMessages(…, { to: \"pi\" })`, LangChain `BaseMessage`s). \"Warm\" is a `Compactor` that has seen the history before (the identity cache, as in a `prepareStep` loop); \"fresh\" a new one each call. A ratio above 1 means the package is faster.", "");
  const table = (title, note, columns) => {
    out.push(`### ${title}`, "", note, "");
    out.push(`| history | ${columns.map((c) => c[0]).join(" | ")} |`);
    out.push(`|---|${columns.map(() => "---").join("|")}|`);
    for (const r of rows) out.push(`| ${r.exactTokens.toLocaleString("en-US")} | ${columns.map((c) => c[1](r.peers)).join(" | ")} |`);
    out.push("");
  };
  const x = (ours, theirs) => (p) => `${ratio(p[ours], p[theirs])}×`;
  const c = (k) => (p) => cell(p[k]);
  table("Choosing the cut", "pi's `prepareCompaction` (and its `findCutPoint` alone) against `Compactor.plan` with the `pi` preset, heuristic counting, the same `keepRecentTokens`.", [
    ["pi findCutPoint", c("piFindCut")],
    ["pi prepareCompaction", c("piPrepare")],
    ["plan, warm", c("ccPlanWarm")],
    ["plan, fresh", c("ccPlanFresh")],
    ["warm vs prepareCompaction", x("ccPlanWarm", "piPrepare")],
  ]);
  table("Estimating the history", "pi's `estimateTokens` (characters ÷ 4 per message) summed, against `Compactor.estimate` (content-aware, per kind).", [
    ["pi estimateTokens", c("piEstimate")],
    ["estimate, warm", c("ccEstimateWarm")],
    ["estimate, fresh", c("ccEstimateFresh")],
    ["warm vs pi", x("ccEstimateWarm", "piEstimate")],
  ]);
  table("The context to send", "pi's `buildSessionContext` over its entries against `Session.render` (cache points included).", [
    ["pi buildSessionContext", c("piContext")],
    ["Session.render", c("ccRender")],
    ["render vs pi", x("ccRender", "piContext")],
  ]);
  table("Trimming to 100,000 tokens", "LangChain's `trimMessages` (strategy `last`) with a characters ÷ 4 counter and with an exact o200k counter memoized per message (gpt-tokenizer and a `WeakMap`), against the package's `trimMessages` (stateless: it converts and counts only the messages it may keep, reading from the end, and the calls their results answer; with `format` given, and with the format detected, which looks at the shape of every message) and `Compactor.trim` (the identity cache). Orphans: tool results kept without their call.", [
    ["LangChain, chars/4", c("lcTrimQuarter")],
    ["LangChain, exact memoized", c("lcTrimExact")],
    ["trimMessages", c("ccTrim")],
    ["trimMessages o200k", c("ccTrimExact")],
    ["trimMessages, format detected", c("ccTrimDetect")],
    ["trimMessages vs chars/4", x("ccTrim", "lcTrimQuarter")],
    ["trimMessages o200k vs exact memoized", x("ccTrimExact", "lcTrimExact")],
    ["Compactor.trim, warm", c("ccCompactorTrim")],
    ["Compactor.trim o200k, warm", c("ccCompactorTrimExact")],
    ["warm vs chars/4", x("ccCompactorTrim", "lcTrimQuarter")],
    ["warm o200k vs exact memoized", x("ccCompactorTrimExact", "lcTrimExact")],
    ["orphans (LangChain chars/4, exact; package)", (p) => `${p.lcTrimQuarterOrphans}, ${p.lcTrimExactOrphans}; ${p.ccTrimOrphans + p.ccCompactorTrimOrphans}`],
  ]);
  table("Pruning tool outputs", "The AI SDK's `pruneMessages` (removes tool calls and results before the last two messages) against `Compactor.prune` with the default settings (superseded and old tool outputs replaced by a placeholder, the recent ones protected; every message returned, the changed ones rebuilt in the caller's format). Not the same job: the AI SDK's only filters the array.", [
    ["ai pruneMessages", c("aiPrune")],
    ["Compactor.prune, warm", c("ccPruneWarm")],
    ["prune vs ai", x("ccPruneWarm", "aiPrune")],
  ]);
  return out;
}
console.log("wrote docs/BENCHMARKS.md");

/** The real sessions of the repository: reading, planning (fresh and warm), and pi's own on pi files. */
function fixtureSection(fixtures) {
  const out = ["## The repository's real sessions", ""];
  out.push("The pi and Claude Code sessions the tests use. `importSession` reads the file (recorded compactions applied); `plan` with the file's agent preset, a 32,000-token window and 8,000 kept tokens; on pi files, pi's own `parseSessionEntries` + `buildSessionContext` and `prepareCompaction` with the same kept tokens.", "");
  out.push("| session | bytes | live messages | tokens | importSession | plan, fresh | plan, warm | pi read + context | pi prepareCompaction | warm plan vs pi |");
  out.push("|---|---|---|---|---|---|---|---|---|---|");
  for (const f of fixtures) {
    const piCells = f.piPrepare ? [cell(f.piRead), cell(f.piPrepare), `${ratio(f.planWarm, f.piPrepare)}×`] : ["–", "–", "–"];
    out.push(`| ${f.name} | ${f.bytes.toLocaleString("en-US")} | ${f.messages} | ${f.tokens.toLocaleString("en-US")} | ${cell(f.import)} | ${cell(f.planFresh)} | ${cell(f.planWarm)} | ${piCells.join(" | ")} |`);
  }
  out.push("");
  return out;
}

/** Issue 12's targets, each with the figure of this run that decides it. */
function targetSection(rows, tokenizerTargets, storeTargets) {
  const big = rows.find((r) => r.size === 1_000_000);
  const p = big.peers;
  const best = fastestRecount(big);
  const gz = (path) => gzipSync(readFileSync(new URL(path, import.meta.url)), { level: 9 }).length;
  const core = gz("../pkg/web/context_compaction_bg.wasm");
  const ranks = ["o200k_base", "cl100k_base"].map((e) => [e, gz(`../encodings/${e}.ranks`), gz(`./node_modules/gpt-tokenizer/esm/bpeRanks/${e}.js`)]);
  const t = [
    ...tokenizerTargets,
    ...["session", "compactor"].map((k) => {
      const s = big[`${k}-o200k_base`];
      const x = big[best].median / s.median;
      return [`per-step ${k === "session" ? "`Session.append` + `check`" : "`Compactor.check` (identity cache)"} at 1M tokens, o200k`, "≤ 1 ms; ≥ 100× recounting with the fastest JS tokenizer", `${fmt(s.median)} ms; ${x.toFixed(0)}× ${best}`, s.median <= 1 && x >= 100];
    }),
    ["`plan` at 1M tokens, heuristic", "faster than pi's `prepareCompaction`", `warm ${fmt(p.ccPlanWarm.median)} vs ${fmt(p.piPrepare.median)} ms (fresh: ${fmt(p.ccPlanFresh.median)} ms)`, p.ccPlanWarm.median < p.piPrepare.median],
    ["trimming at 1M tokens (`Compactor.trim`)", "≥ 100× LangChain's with chars/4, faster than its exact memoized; never orphaning", `${ratio(p.ccCompactorTrim, p.lcTrimQuarter)}× and ${ratio(p.ccCompactorTrimExact, p.lcTrimExact)}×; ${p.ccCompactorTrimOrphans} orphans (LangChain: ${p.lcTrimQuarterOrphans}, ${p.lcTrimExactOrphans})`, p.lcTrimQuarter.median / p.ccCompactorTrim.median >= 100 && p.ccCompactorTrimExact.median < p.lcTrimExact.median && p.ccCompactorTrimOrphans === 0],
    ["stateless `trimMessages` at 1M tokens", "the same, with nothing kept between calls", `${ratio(p.ccTrim, p.lcTrimQuarter)}× and ${ratio(p.ccTrimExact, p.lcTrimExact)}× (format detected: ${ratio(p.ccTrimDetect, p.lcTrimQuarter)}×); ${p.ccTrimOrphans} orphans`, p.lcTrimQuarter.median / p.ccTrim.median >= 100 && p.ccTrimExact.median < p.lcTrimExact.median && p.ccTrimOrphans === 0],
    ["core `.wasm`, gzip", "≤ 100 KiB without exact counting (a second module for it)", `${(core / 1024).toFixed(0)} KiB, one module with exact counting`, core <= 100 * 1024],
    ...ranks.map(([e, ours, theirs]) => [`rank data shipped, ${e}, gzip`, "no larger than gpt-tokenizer's", `${(ours / 1024).toFixed(0)} vs ${(theirs / 1024).toFixed(0)} KiB`, ours <= theirs]),
    ...storeTargets,
  ];
  const out = ["## Targets (issue 12)", "", "Each figure is from this run.", "", "| measure | target | this run | met |", "|---|---|---|---|"];
  for (const row of t) out.push(targetRow(row));
  out.push("");
  return out;
}

function targetRow([measure, target, figure, met]) {
  return `| ${measure} | ${target} | ${figure} | ${met ? "yes" : "**no**"} |`;
}

/**
 * BENCHMARKS.md with a new stores section: the "## Stores" section replaced (or added at the end)
 * and the Targets table's "stores: " rows replaced (or added at its end).
 */
function replaceStores(doc, stores) {
  const lines = doc.replace(/\n+$/, "").split("\n");
  const start = lines.indexOf("## Stores");
  if (start !== -1) {
    const next = lines.findIndex((l, i) => i > start && l.startsWith("## "));
    lines.splice(start, (next === -1 ? lines.length : next) - start);
  }
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  lines.push("", ...stores.lines);
  const head = lines.findIndex((l) => l.startsWith("## Targets"));
  if (head === -1) throw new Error("docs/BENCHMARKS.md has no Targets section: run the whole benchmark");
  const kept = [];
  let end = -1;
  for (let i = head + 1; i < lines.length && !lines[i].startsWith("## "); i++) {
    if (lines[i].startsWith("| stores: ")) continue;
    kept.push(lines[i]);
    if (lines[i].startsWith("|")) end = kept.length;
  }
  kept.splice(end, 0, ...stores.targets.map(targetRow));
  lines.splice(head + 1, lines.findIndex((l, i) => i > head && l.startsWith("## ")) - head - 1, ...kept);
  while (lines.at(-1) === "") lines.pop();
  return `${lines.join("\n")}\n`;
}
