import { Compactor, Session, importSession } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";
function turns(history) {
  const starts = history.map((m, i) => (m.role === "user" && (typeof m.content === "string" || m.content?.some?.((p) => p.type === "text")) ? i : -1)).filter((i) => i >= 0);
  if (starts[0] !== 0) starts.unshift(0);
  return starts.map((s, k) => history.slice(s, starts[k + 1] ?? history.length)).filter((t) => t.length > 0);
}
const preset = process.argv[2], file = process.argv[3], kind = process.argv[4], limit = +process.argv[5];
const imported = importSession(fixtureText(file), kind);
const list = turns(imported.history.slice(0, limit));
const sum = (r) => `Summary ${r.purpose} ${r.round}: ${r.messages.length} messages.`;
const o = { preset, contextWindow: 24000, reserveTokens: 2000, summarize: sum, retries: 0 };
const c = new Compactor(o); const s = new Session({ ...o, format: imported.format });
let ma = [];
const show = (ms) => ms.map((m) => m.role[0] + ":" + JSON.stringify(m.content).slice(0, 30).replace(/\s+/g," ")).join(" | ");
for (const [k, t] of list.entries()) {
  ma = await c.maybeCompact([...ma, ...t]);
  s.append(t);
  const mb = (await s.prepare({ cacheControl: false })).messages;
  if (JSON.stringify(ma) !== JSON.stringify(mb)) {
    console.log("turn", k, "\nA:", show(ma).slice(0, 1500), "\nB:", show(mb).slice(0, 1500));
    console.log(s.toJSONL().split("\n").filter(l => l.includes('"compaction"')).map(l => { const e = JSON.parse(l); delete e.summary; delete e.digest; return JSON.stringify(e); }).join("\n"));
    break;
  }
}
