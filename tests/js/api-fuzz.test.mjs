// The smoke run of the API fuzz (tests/js/api-fuzz.mjs); `npm run fuzz` runs 50,000 cases.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runApiFuzz } from "./api-fuzz.mjs";

test("600 random and corrupted arrays in every format: typed errors only, input untouched, valid outputs", async () => {
  const counts = await runApiFuzz(600);
  assert.equal(counts.cases, 600);
  assert.ok(counts.ok > counts.cases, "most calls succeed");
  assert.ok(counts.errors > 0, "the corrupted inputs are refused");
});
