// The README's TypeScript quick start type-checks and runs against the built package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root, consumerWith } from "./pack.mjs";

test("README quick start compiles with tsc and runs", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"));
  const code = section.match(/```ts\n([\s\S]*?)```/)?.[1];
  assert.ok(code, "README has a ```ts block under ## Quick start");
  // A consumer project with the packed package installed, as a user would have it.
  const dir = consumerWith("readme");
  writeFileSync(join(dir, "quickstart.mts"), code);
  const tsc = join(root, "node_modules/.bin/tsc");
  execFileSync(tsc, ["--strict", "--module", "nodenext", "--target", "es2022", "--types", "node", "--outDir", dir, join(dir, "quickstart.mts")], { stdio: "inherit" });
  const out = execFileSync(process.execPath, [join(dir, "quickstart.mjs")], { encoding: "utf8", env: { ...process.env, TOKENIZER: "" } });
  const lines = out.trim().split("\n");
  assert.match(lines[0], /^estimate: \d+$/);
  assert.match(lines[1], /^o200k_base: \d+$/);
  assert.match(lines[2], /^cl100k_base: \d+$/);
  assert.equal(lines[3], "INVALID_INPUT encoding");
});
