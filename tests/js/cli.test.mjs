// The command-line report on the bundled session.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { get_encoding } from "tiktoken";
import { root } from "./pack.mjs";

const cli = join(root, "bin/context-compaction.mjs");
const session = join(root, "fixtures/claude-code-tool-heavy.jsonl");

test("the report counts every content block of the session by kind", () => {
  const report = JSON.parse(execFileSync(process.execPath, [cli, session, "--json"], { encoding: "utf8" }));
  // Counted independently: the session's tool_use and tool_result blocks, and its exact total.
  const lines = readFileSync(session, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const blocks = lines.flatMap((l) => {
    const content = l.message?.content;
    return typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
  });
  assert.equal(report.kinds.toolCalls.blocks, blocks.filter((b) => b.type === "tool_use").length);
  assert.equal(report.kinds.toolResults.blocks, blocks.filter((b) => b.type === "tool_result").length);
  assert.equal(report.kinds.reasoning.blocks, blocks.filter((b) => b.type === "thinking").length);
  const o200k = get_encoding("o200k_base");
  const textTokens = blocks
    .filter((b) => b.type === "text")
    .reduce((n, b) => n + o200k.encode_ordinary(b.text).length, 0);
  assert.equal(report.kinds.text.o200k, textTokens);
  const sum = Object.values(report.kinds).reduce((n, k) => n + k.o200k, 0);
  assert.equal(report.total.o200k, sum);
  assert.ok(report.total.estimate > 0);
});

test("the table names every kind and a malformed file is a clear error", () => {
  const out = execFileSync(process.execPath, [cli, session], { encoding: "utf8" });
  for (const kind of ["system", "text", "reasoning", "toolCalls", "toolResults", "images", "total"]) {
    assert.match(out, new RegExp(`^${kind}\\s`, "m"));
  }
  const bad = spawnSync(process.execPath, [cli, join(root, "README.md")], { encoding: "utf8" });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /INVALID_INPUT: line 1 is not JSON/);
});
