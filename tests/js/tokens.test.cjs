// The same package through require(): one instance shared with the ES module entry.
const { test } = require("node:test");
const assert = require("node:assert/strict");
const cc = require("context-compaction");

test("require() exposes the API", () => {
  assert.equal(typeof cc.countTokens, "function");
  assert.equal(typeof cc.estimateTokens, "function");
  assert.equal(typeof cc.loadEncoding, "function");
  assert.equal(cc.countTokens("hello world", "o200k_base"), 2);
});

test("CommonJS and ES module entries share one instance and one error class", async () => {
  const esm = await import("context-compaction");
  assert.equal(esm.CompactionError, cc.CompactionError);
  assert.equal(esm.countTokens, cc.countTokens);
  let caught;
  try {
    esm.countTokens("x", "nope");
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof cc.CompactionError);
  assert.equal(caught.name, "CompactionError");
});
