// The published declarations are precise: no `any` anywhere a user can reach.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";

// Every declaration file the build writes (pkg/types/esm and pkg/types/cjs, from js/ and js/types).
const published = readdirSync(new URL("../../pkg/types", import.meta.url), { recursive: true })
  .filter((f) => /\.d\.[cm]ts$/.test(f))
  // The stores' declarations describe their clients' objects loosely (see js/stores/*.d.ts).
  .filter((f) => !f.includes("stores/") || f.endsWith("contract.d.mts") || f.endsWith("contract.d.cts"))
  .map((f) => `pkg/types/${f}`);

test("published .d.ts files contain no `any`", () => {
  for (const file of published) {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "");
    assert.doesNotMatch(text, /\bany\b/, file);
  }
});

test("internal hooks are not declared", () => {
  assert.ok(published.length >= 20, `declarations: ${published}`);
  for (const file of published) {
    assert.doesNotMatch(readFileSync(new URL(`../../${file}`, import.meta.url), "utf8"), /__configure|__installEncoding|__wbg_reset_state/, file);
  }
});
