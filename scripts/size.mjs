// Prints raw, gzip and brotli sizes of every built .wasm and of the shipped rank tables
// (encodings/*.ranks), and fails when one exceeds the budget in size-budget.json (bytes; gzip is
// the number that matters for users). The tables' gzip budgets are gpt-tokenizer 4.0.0's data for
// the same encodings (its bpeRanks modules, gzip -9): the package must not ship more.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

const budget = JSON.parse(readFileSync(new URL("../size-budget.json", import.meta.url), "utf8"));
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`.padStart(11);
let over = 0;
let seen = 0;
function report(label, bytes, limits) {
  const sizes = {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
    }).length,
  };
  const verdicts = Object.entries(limits ?? {})
    .filter(([kind, limit]) => sizes[kind] > limit)
    .map(([kind, limit]) => `${kind} ${sizes[kind]} > budget ${limit}`);
  over += verdicts.length;
  console.log(
    `${label.padEnd(42)} raw ${kib(sizes.raw)}  gzip ${kib(sizes.gzip)}  brotli ${kib(sizes.brotli)}` +
      (verdicts.length ? `  OVER: ${verdicts.join(", ")}` : ""),
  );
}
for (const target of ["node", "web"]) {
  const dir = new URL(`../pkg/${target}/`, import.meta.url);
  if (!existsSync(dir)) continue;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".wasm"))) {
    seen += 1;
    report(`pkg/${target}/${file}`, readFileSync(new URL(file, dir)), budget[file]);
  }
}
const tables = new URL("../encodings/", import.meta.url);
for (const file of readdirSync(tables).filter((f) => f.endsWith(".ranks"))) {
  report(`encodings/${file}`, readFileSync(new URL(file, tables)), budget[file]);
}
if (seen === 0) {
  console.error("no .wasm found under pkg/: run `npm run build` first");
  process.exit(1);
}
if (over > 0) {
  console.error(`${over} size budget(s) exceeded (size-budget.json)`);
  process.exit(1);
}
console.log("size budgets: ok");
