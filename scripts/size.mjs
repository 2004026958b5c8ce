// Prints raw, gzip and brotli sizes of every built .wasm and fails when one exceeds the budget in
// size-budget.json (bytes; gzip is the number that matters for users).
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";

const budget = JSON.parse(readFileSync(new URL("../size-budget.json", import.meta.url), "utf8"));
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`.padStart(11);
let over = 0;
let seen = 0;
for (const target of ["node", "web"]) {
  const dir = new URL(`../pkg/${target}/`, import.meta.url);
  if (!existsSync(dir)) continue;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".wasm"))) {
    const bytes = readFileSync(new URL(file, dir));
    const sizes = {
      raw: bytes.length,
      gzip: gzipSync(bytes, { level: 9 }).length,
      brotli: brotliCompressSync(bytes, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
      }).length,
    };
    seen += 1;
    const limits = budget[file] ?? {};
    const verdicts = Object.entries(limits)
      .filter(([kind, limit]) => sizes[kind] > limit)
      .map(([kind, limit]) => `${kind} ${sizes[kind]} > budget ${limit}`);
    over += verdicts.length;
    console.log(
      `${`pkg/${target}/${file}`.padEnd(42)} raw ${kib(sizes.raw)}  gzip ${kib(sizes.gzip)}  brotli ${kib(sizes.brotli)}` +
        (verdicts.length ? `  OVER: ${verdicts.join(", ")}` : ""),
    );
  }
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
