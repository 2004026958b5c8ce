// `npm run eval`: the fact-retention evaluation on every real session of tests/fixtures (rules in
// bench/quality-facts.mjs). Prints the table and rewrites the measured part of docs/QUALITY.md
// (between the `<!-- eval -->` markers); `--check` only prints and fails when a candidate's recall
// is below its floor in bench/quality-floor.json.
import { readFileSync, writeFileSync } from "node:fs";
import { KINDS, evaluate, pct, totals } from "./quality-facts.mjs";

const DOC = new URL("../docs/QUALITY.md", import.meta.url);
const FLOOR = JSON.parse(readFileSync(new URL("./quality-floor.json", import.meta.url), "utf8"));

const rows = await evaluate();
const sums = totals(rows);
const head = `| what | sessions | tokens | ${KINDS.join(" | ")} | all facts | facts per 1k tokens |`;
const rule = `|${"---|".repeat(KINDS.length + 5)}`;
const line = (t) =>
  `| ${t.what} | ${t.sessions} | ${t.tokens.toLocaleString("en-US")} | ${KINDS.map((k) => pct(t.recall[k])).join(" | ")} | ${pct(t.recall.all)} | ${t.tokens === 0 ? "—" : ((1000 * t.recall.all.kept) / t.tokens).toFixed(1)} |`;
const perSession = rows.map(
  (r) => `| ${r.session} | ${r.what} | ${r.tokens.toLocaleString("en-US")} | ${KINDS.map((k) => `${r.recall[k].kept}/${r.recall[k].total}`).join(" | ")} |`,
);
const section = [
  "<!-- eval -->",
  "### All sessions",
  "",
  head,
  rule,
  ...sums.map(line),
  "",
  "The agents' own summaries are scored only on the sessions that recorded one.",
  "",
  "### Per session (facts kept / facts)",
  "",
  `| session | what | tokens | ${KINDS.join(" | ")} |`,
  `|${"---|".repeat(KINDS.length + 3)}`,
  ...perSession,
  "<!-- /eval -->",
].join("\n");
console.log(section);

const failures = [];
for (const t of sums) {
  for (const [kind, floor] of Object.entries(FLOOR[t.what] ?? {})) {
    const r = t.recall[kind];
    if (r.total > 0 && r.kept / r.total < floor) failures.push(`${t.what}: ${kind} ${pct(r)} < floor ${floor * 100}%`);
  }
}
if (process.argv.includes("--check")) {
  if (failures.length > 0) throw new Error(`recall below the floor:\n${failures.join("\n")}`);
} else {
  const doc = readFileSync(DOC, "utf8");
  writeFileSync(DOC, doc.replace(/<!-- eval -->[\s\S]*<!-- \/eval -->/, section));
  console.log(failures.length > 0 ? `\nbelow the floor:\n${failures.join("\n")}` : "\nwrote docs/QUALITY.md");
}
