import { evaluate, totals, pct, KINDS, SETS } from "./quality-facts.mjs";
const rows = await evaluate();
for (const set of SETS) { console.log("##", set); for (const t of totals(rows.filter(r=>r.set===set))) console.log(t.what, t.tokens, t.maxTokens, KINDS.map(k=>k+"="+pct(t.recall[k])).join(" "), "all="+pct(t.recall.all)); }
for (const r of rows.filter(r=>r.what==="extractive summary")) console.log(r.session, r.tokens, KINDS.map(k=>`${r.recall[k].kept}/${r.recall[k].total}`).join(" "));
if (process.argv[2]) for (const r of rows.filter(r=>r.what==="extractive summary")) for (const k of KINDS) if (r.recall[k].missing.length) console.log(r.session, k, JSON.stringify(r.recall[k].missing.slice(0,8)));
