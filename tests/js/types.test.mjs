// The published declarations are precise: no `any` anywhere a user can reach.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const published = ["js/index.d.ts", "js/web.d.mts", "pkg/node/context_compaction.d.ts"];

test("published .d.ts files contain no `any`", () => {
  for (const file of published) {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "");
    assert.doesNotMatch(text, /\bany\b/, file);
  }
});

test("internal hooks are not declared", () => {
  const text = readFileSync(new URL("../../pkg/node/context_compaction.d.ts", import.meta.url), "utf8");
  assert.doesNotMatch(text, /__configure|__installEncoding/);
});
