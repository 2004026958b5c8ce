// Agent session files as the agents leave them: a file still being written ends in part of a line,
// and a file is sometimes handed to the wrong importer. importSession, Session.fromSessionFile and
// the CLI read up to the last complete line and say which line they left out (strict mode refuses
// it), and a file of the other agent fails with the reason instead of reading as empty.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CompactionError, Session, importSession } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const cli = fileURLToPath(new URL("../../bin/context-compaction.mjs", import.meta.url));
const options = { contextWindow: 200_000, summarize: "extractive" };

/** The file cut in the middle of its last line, as a reader sees it while the agent appends. */
function cutInLastLine(text) {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  const start = body.lastIndexOf("\n") + 1;
  const line = body.slice(0, start).split("\n").length;
  return { text: body.slice(0, start + Math.floor((body.length - start) / 2)), line, complete: body.slice(0, start) };
}

for (const [kind, rel] of [
  ["pi", "pi/large-session.jsonl"],
  ["claude-code", "claude-code/tool_heavy.jsonl"],
]) {
  test(`importSession (${kind}): a file still being written reads up to its last complete line, with a warning naming the line`, () => {
    const { text, line, complete } = cutInLastLine(fixtureText(rel));
    const read = importSession(text, kind);
    const whole = importSession(complete, kind);
    assert.deepEqual(read.history, whole.history, "everything before the incomplete line");
    assert.equal(read.warnings.length, 1);
    assert.match(read.warnings[0], new RegExp(`^line ${line}: incomplete last line left out`));
    assert.deepEqual(whole.warnings, []);
    assert.throws(
      () => importSession(text, kind, { strict: true }),
      (e) => e instanceof CompactionError && e.code === "INVALID_INPUT" && e.path === `line ${line}` && e.message.startsWith(`line ${line}: not valid JSON`),
    );
    // A bad line that a newline ends is not being written: it is refused, strict or not.
    assert.throws(() => importSession(`${text}\n${complete.split("\n")[0]}\n`, kind), (e) => e.code === "INVALID_INPUT" && e.path === `line ${line}`);
  });

  test(`Session.fromSessionFile (${kind}): the same, the warning to onWarning (default console.warn)`, (t) => {
    const { text, line, complete } = cutInLastLine(fixtureText(rel));
    const warnings = [];
    const session = Session.fromSessionFile(text, kind, options, { onWarning: (w) => warnings.push(w) });
    const whole = Session.fromSessionFile(complete, kind, options);
    assert.deepEqual(session.render().messages, whole.render().messages);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], new RegExp(`^line ${line}: `));
    const warn = t.mock.method(console, "warn", () => {});
    Session.fromSessionFile(text, kind, options).free();
    assert.equal(warn.mock.callCount(), 1);
    assert.match(warn.mock.calls[0].arguments[0], new RegExp(`context-compaction: line ${line}: incomplete last line`));
    assert.throws(() => Session.fromSessionFile(text, kind, options, { strict: true }), (e) => e.code === "INVALID_INPUT" && e.path === `line ${line}`);
    assert.throws(() => Session.fromSessionFile(text, kind, options, { strict: "yes" }), (e) => e.code === "INVALID_OPTIONS" && e.path === "read.strict");
    assert.throws(() => importSession(text, kind, { lenient: true }), (e) => e.code === "INVALID_OPTIONS" && e.path === "options.lenient");
    session.free();
    whole.free();
  });
}

test("a file of the other agent fails with the reason; the right importer reads it", () => {
  const claude = fixtureText("claude-code/tool_heavy.jsonl");
  const pi = fixtureText("pi/large-session.jsonl");
  assert.throws(
    () => importSession(claude, "pi"),
    (e) => e instanceof CompactionError && e.code === "INVALID_INPUT" && /^line \d+$/.test(e.path) && /this is a Claude Code session file .*import it as "claude-code"/.test(e.message),
  );
  assert.throws(
    () => importSession(pi, "claude-code"),
    (e) => e.code === "INVALID_INPUT" && e.path === "line 1" && /this is a pi session file \(a "session" entry\).*import it as "pi"/.test(e.message),
  );
  assert.throws(() => Session.fromSessionFile(claude, "pi", options), (e) => e.code === "INVALID_INPUT" && /Claude Code session file/.test(e.message));
  assert.throws(() => importSession('{"type":"note"}\n{"type":"note"}\n', "pi"), (e) => e.code === "INVALID_INPUT" && /not a pi session file/.test(e.message));
  assert.ok(importSession(claude, "claude-code").history.length > 0);
  assert.ok(importSession(pi, "pi").history.length > 0);
  // A file with no lines yet is an empty session of either agent.
  assert.deepEqual(importSession("", "pi").history, []);
});

test("the CLI inspects a file still being written, warning on stderr, and names the other agent's file", () => {
  const dir = mkdtempSync(join(tmpdir(), "cc-session-files-"));
  const { text, line } = cutInLastLine(fixtureText("pi/large-session.jsonl"));
  const file = join(dir, "growing.jsonl");
  writeFileSync(file, text);
  const r = spawnSync(process.execPath, [cli, "inspect", file, "--json"], { encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).input.kind, "pi");
  assert.match(r.stderr, new RegExp(`warning: line ${line}: incomplete last line left out`));
  const claude = join(dir, "claude.jsonl");
  writeFileSync(claude, fixtureText("claude-code/tool_heavy.jsonl"));
  const wrong = spawnSync(process.execPath, [cli, "inspect", claude, "--format", "pi"], { encoding: "utf8" });
  assert.equal(wrong.status, 1);
  assert.match(wrong.stderr, /this is a Claude Code session file/);
});
