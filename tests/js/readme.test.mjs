// Every TypeScript block of the README type-checks against the packed package; the self-contained
// ones (the quick start and the trimming example) also run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root, consumerWith } from "./pack.mjs";

const blocks = [...readFileSync(join(root, "README.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);

test("README TypeScript blocks compile with tsc, and the quick starts run", () => {
  assert.ok(blocks.length >= 4, `README has ${blocks.length} ts blocks`);
  // A consumer project with the packed package installed, as a user would have it.
  const dir = consumerWith("readme");
  const files = blocks.map((code, i) => {
    const file = join(dir, `block${i}.mts`);
    writeFileSync(file, code.includes("export ") || code.includes("import ") ? code : `${code}\nexport {};\n`);
    return file;
  });
  const tsc = join(root, "node_modules/.bin/tsc");
  execFileSync(tsc, ["--strict", "--module", "nodenext", "--target", "es2022", "--types", "node", "--skipLibCheck", "--outDir", dir, ...files], { stdio: "inherit" });
  const run = (i) => execFileSync(process.execPath, [join(dir, `block${i}.mjs`)], { encoding: "utf8", env: { ...process.env, TOKENIZER: "" } });
  const lines = run(0).trim().split("\n");
  assert.match(lines[0], /^estimate: \d+$/);
  assert.match(lines[1], /^o200k_base: \d+$/);
  assert.match(lines[2], /^cl100k_base: \d+$/);
  assert.equal(lines[3], "INVALID_INPUT encoding");
  const trimming = blocks.findIndex((b) => b.includes("trimMessages("));
  assert.equal(run(trimming).trim(), "4");
});
