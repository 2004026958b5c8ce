// `context-compaction compact --out` never replaces its input by accident (issue 23, point 10):
// --out naming the input file, or a symbolic link to it, is refused (exit 2, the input unchanged)
// unless --force; every write goes through a temporary file and a rename, and a link at --out
// stays a link.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Session } from "context-compaction";
import { root } from "./pack.mjs";
import { fixturePath } from "./fixtures.mjs";

const cli = join(root, "bin/context-compaction.mjs");
const scratch = join(root, "tests/.tmp/cli-out");
rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
const run = (args) => spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 });
const input = join(scratch, "session.jsonl");
copyFileSync(fixturePath("claude-code-tool-heavy.jsonl", { bundled: true }), input);
const original = readFileSync(input, "utf8");

test("--out naming the input, or a link to it, is refused without --force; the input is unchanged", () => {
  const link = join(scratch, "link.jsonl");
  symlinkSync(input, link);
  for (const out of [input, link, join(scratch, ".", "session.jsonl")]) {
    const r = run(["compact", input, "--window", "8000", "--out", out]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /is the input file.*--force/);
    assert.equal(readFileSync(input, "utf8"), original);
  }
  // Naming the input through the link is caught the same way.
  assert.equal(run(["compact", link, "--window", "8000", "--out", input]).status, 2);
  assert.equal(readFileSync(input, "utf8"), original);
});

test("--force replaces the input through a temporary file; a link at --out stays a link", () => {
  const copy = join(scratch, "forced.jsonl");
  copyFileSync(input, copy);
  const link = join(scratch, "forced-link.jsonl");
  symlinkSync(copy, link);
  const r = run(["compact", copy, "--window", "8000", "--out", link, "--force"]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(lstatSync(link).isSymbolicLink(), "the link is kept");
  const log = readFileSync(copy, "utf8");
  assert.notEqual(log, original);
  assert.ok(Session.fromJSONL(log, { contextWindow: 8000 }).render().messages.length > 0);
  assert.deepEqual(readdirSync(scratch).filter((f) => f.endsWith(".tmp")), [], "no temporary file left");
});
