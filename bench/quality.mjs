// `npm run eval`: the fact-retention evaluation on every real session of tests/fixtures (rules in
// bench/quality-facts.mjs), reported for the held-out set (tests/fixtures/heldout: the sessions the
// targets are stated on, never tuned on) and the tuning set apart. Prints the tables and rewrites
// the measured part of docs/QUALITY.md (between the `<!-- eval -->` markers); `--check` only
// prints and fails when a candidate is below its floor in bench/quality-floor.json.
import { readFileSync, writeFileSync } from "node:fs";
import { KINDS, SETS, evaluate, floorFailures, pct, totals } from "./quality-facts.mjs";

const DOC = new URL("../docs/QUALITY.md", import.meta.url);
const FLOOR = JSON.parse(readFileSync(new URL("./quality-floor.json", import.meta.url), "utf8"));
const TITLES = { "held-out": "Held-out sessions (the targets)", tuning: "Tuning sessions" };

const rows = await evaluate();
const head = `| what | sessions | tokens | most per session | ${KINDS.join(" | ")} | all facts | facts per 1k tokens |`;
const rule = `|${"---|".repeat(KINDS.length + 6)}`;
const n = (x) => x.toLocaleString("en-US");
const line = (t) =>
  `| ${t.what} | ${t.sessions} | ${n(t.tokens)} | ${n(t.maxTokens)} | ${KINDS.map((k) => pct(t.recall[k])).join(" | ")} | ${pct(t.recall.all)} | ${t.tokens === 0 ? "—" : ((1000 * t.recall.all.kept) / t.tokens).toFixed(1)} |`;
const perSession = (list) =>
  list.map((r) => `| ${r.session} | ${r.what} | ${n(r.tokens)} | ${KINDS.map((k) => `${r.recall[k].kept}/${r.recall[k].total}`).join(" | ")} |`);
const section = ["<!-- eval -->"];
for (const set of SETS) {
  const mine = rows.filter((r) => r.set === set);
  section.push(`### ${TITLES[set]}`, "", head, rule, ...totals(mine).map(line), "");
}
section.push(
  "The agents' own summaries are scored only on the sessions that recorded one.",
  "",
  "### Per session (facts kept / facts)",
  "",
  `| session | what | tokens | ${KINDS.join(" | ")} |`,
  `|${"---|".repeat(KINDS.length + 3)}`,
  ...perSession(rows),
  "<!-- /eval -->",
);
const text = section.join("\n");
console.log(text);

const failures = floorFailures(rows, FLOOR);
if (process.argv.includes("--check")) {
  if (failures.length > 0) throw new Error(`below the floor:\n${failures.join("\n")}`);
} else {
  const doc = readFileSync(DOC, "utf8");
  writeFileSync(DOC, doc.replace(/<!-- eval -->[\s\S]*<!-- \/eval -->/, text));
  console.log(failures.length > 0 ? `\nbelow the floor:\n${failures.join("\n")}` : "\nwrote docs/QUALITY.md");
}
