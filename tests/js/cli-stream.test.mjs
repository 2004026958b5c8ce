// `compact` reads a JSON array of messages a piece at a time (bin/cli/stream.mjs): the session and
// its log are those of the array read whole, and a bad element is named by its line and its index
// in the whole array, also past the first batch.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { Session } from "context-compaction";
import { root } from "./pack.mjs";

const cli = join(root, "bin/context-compaction.mjs");
const scratch = join(root, "tests/.tmp/cli-stream");
mkdirSync(scratch, { recursive: true });
after(() => rmSync(scratch, { recursive: true, force: true }));
const run = (args) => spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8", maxBuffer: 256 << 20 });

const message = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}, with "quotes", [brackets], {braces} and \\ ${"text ".repeat(100)}` });
/** 12,000 messages of about 560 characters: over 6 MiB, more than one batch. */
const messages = Array.from({ length: 12_000 }, (_, i) => message(i));
const arrayText = (list) => `[\n${list.map((m) => JSON.stringify(m)).join(",\n")}\n]\n`;

test("an array read a piece at a time: every message logged in order, in its detected format", () => {
  const file = join(scratch, "many.json");
  writeFileSync(file, arrayText(messages));
  const out = join(scratch, "many.log.jsonl");
  const r = run(["compact", file, "--window", "100000", "--out", out, "--json"]);
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.messages.before, messages.length);
  assert.equal(report.input.format, "ai-sdk");
  // Every message of the array is in the log, in order.
  const log = readFileSync(out, "utf8");
  const session = Session.fromJSONL(log, { contextWindow: 100_000, summarize: "extractive" });
  assert.equal(session.entries().filter((e) => e.type === "message").length, messages.length);
  session.free();
  const logged = log.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "message");
  assert.deepEqual(logged.map((e) => e.message.content), messages.map((m) => m.content));
});

test("a bad element past the first batch is named by its index in the whole array and its line", () => {
  const bad = messages.slice();
  bad[11_000] = { content: "no role" };
  const file = join(scratch, "bad-role.json");
  writeFileSync(file, arrayText(bad));
  const r = run(["compact", file]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /messages\[11000\]/);
  const lines = arrayText(messages.slice(0, 20)).split("\n");
  lines[8] = lines[8].replace('{"role"', '{"role" "');
  writeFileSync(file, lines.join("\n"));
  const r2 = run(["compact", file]);
  assert.equal(r2.status, 1);
  assert.match(r2.stderr, /line 9: not valid JSON/);
  writeFileSync(file, `${arrayText(messages.slice(0, 3))} trailing`);
  const r3 = run(["compact", file]);
  assert.equal(r3.status, 1);
  assert.match(r3.stderr, /text after the closing bracket/);
  writeFileSync(file, arrayText(messages.slice(0, 3)).slice(0, -4));
  const r4 = run(["compact", file]);
  assert.equal(r4.status, 1);
  assert.match(r4.stderr, /cut short/);
});
