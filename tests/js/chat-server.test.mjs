// The chat-server example (examples/chat-server) runs as its README says: run.mjs starts two
// server processes over one SQLite file, chats through both, and reports. Its own checks decide
// the exit code; here the report's key lines are read back too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const runScript = fileURLToPath(new URL("../../examples/chat-server/run.mjs", import.meta.url));

test("examples/chat-server/run.mjs: two servers share the conversations, compact them, lose no message", { timeout: 30_000 }, async () => {
  // The embedded store only, whatever this shell points at.
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const { code, stdout, stderr } = await new Promise((resolve) => {
    execFile(process.execPath, [runScript], { env, encoding: "utf8", timeout: 28_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code ?? error.signal) : 0, stdout, stderr }),
    );
  });
  assert.equal(code, 0, `run.mjs exited ${code}\n${stdout}\n${stderr}`);
  assert.match(stdout, /^A: listening on http:\/\/127\.0\.0\.1:\d+ \(sqlite /m);
  assert.match(stdout, /^B: listening on http:\/\/127\.0\.0\.1:\d+ \(sqlite /m);
  assert.match(stdout, /^  turns +30 .*: 36 messages\)$/m);
  const compactions = Number(/^  compactions +(\d+)$/m.exec(stdout)?.[1]);
  const calls = Number(/^  summarizer calls +(\d+)$/m.exec(stdout)?.[1]);
  assert.ok(compactions >= 2, `compactions: ${compactions}`);
  // At least one summary in each compaction (two when it splits a turn).
  assert.ok(calls >= compactions, `summarizer calls: ${calls}`);
  for (const person of ["alice", "bob"]) {
    const line = new RegExp(`^  ${person} +(\\d+) compactions, .*live (\\d+) tokens .* of (\\d+) tokens in 36 messages stored$`, "m").exec(stdout);
    assert.ok(line, `the report has ${person}'s line`);
    assert.ok(Number(line[2]) < Number(line[3]) / 2, `${person}: live ${line[2]} of ${line[3]} tokens`);
  }
  assert.match(stdout, /^check: every user message stored exactly once: ok$/m);
  assert.match(stdout, /^check: every message has its reply stored: ok$/m);
  assert.match(stdout, /^check: every prompt fit the window: ok$/m);
  assert.match(stdout, /^all checks passed$/m);
});
