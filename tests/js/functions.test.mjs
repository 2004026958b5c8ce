// validateMessages, repairMessages, trimMessages, importSession through the built package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateMessages, repairMessages, trimMessages, importSession, CompactionError } from "context-compaction";
import { aiSdkHistory, openAiHistory } from "./history.mjs";
import { fixtureText } from "./fixtures.mjs";

const orphaned = [
  { role: "user", content: "go" },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "ghost", toolName: "read", output: { type: "text", value: "x" } }] },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "a", toolName: "read", input: {} }, { type: "tool-call", toolCallId: "b", toolName: "read", input: {} }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "a", toolName: "read", output: { type: "text", value: "x" } }] },
  { role: "user", content: "next" },
];

test("validateMessages lists orphaned results and unanswered calls with paths", () => {
  assert.deepEqual(validateMessages(aiSdkHistory(5)), []);
  const found = validateMessages(orphaned, "ai-sdk");
  const kinds = found.map((v) => `${v.kind} ${v.path} ${v.id}`);
  assert.ok(kinds.includes("orphan-result messages[1].content[0] ghost"), kinds.join("\n"));
  assert.ok(kinds.includes("unanswered-call messages[2].content[1] b"), kinds.join("\n"));
});

test("repairMessages fixes pairing; valid input comes back deep-equal", () => {
  const { messages, actions } = repairMessages(orphaned);
  assert.deepEqual(validateMessages(messages), []);
  assert.ok(actions.some((a) => a.action === "removed-result" && a.id === "ghost"));
  assert.ok(actions.some((a) => a.action === "added-results" && a.ids.includes("b")));
  const valid = openAiHistory(3);
  assert.deepEqual(repairMessages(valid).messages, valid);
});

test("trimMessages keeps the last messages within the budget, never a result without its call", () => {
  const history = aiSdkHistory(10);
  for (const maxTokens of [50, 300, 1000, 5000]) {
    const kept = trimMessages(history, { maxTokens, strategy: "last", startOn: "user", includeSystem: true });
    assert.deepEqual(validateMessages(kept), []);
    for (const m of kept) assert.ok(history.includes(m), "kept messages are the caller's objects");
    if (kept.length > 1) assert.equal(kept[1].role, "user");
    assert.equal(kept[0], history[0]);
  }
  const first = trimMessages(history, { maxTokens: 1000, strategy: "first" });
  assert.equal(first[0], history[0]);
  assert.throws(() => trimMessages(history, { maxTokens: 10, strategy: "middle" }), (e) => e instanceof CompactionError && e.path === "strategy");
  assert.throws(() => trimMessages(history, { strategy: "last" }), (e) => e.code === "INVALID_OPTIONS" && e.path === "maxTokens");
});

test("importSession reads the bundled Claude Code session", () => {
  const text = fixtureText("claude-code-tool-heavy.jsonl", { bundled: true });
  const session = importSession(text, "claude-code");
  assert.equal(session.format, "anthropic");
  assert.ok(session.messages.length > 5);
  assert.deepEqual(validateMessages(session.messages, "anthropic"), []);
  assert.deepEqual(session.history, session.messages, "no compaction: the live context is the history");
  assert.deepEqual(session.compactions, []);
  assert.throws(() => importSession(text, "cursor"), (e) => e.code === "INVALID_INPUT" && e.path === "kind");
  assert.throws(() => importSession("{not json\n", "pi"), (e) => e.code === "INVALID_INPUT");
  assert.throws(() => importSession("{not json", "pi", { strict: true }), (e) => e.code === "INVALID_INPUT");
});

test("importSession honours the compactions recorded in pi and Claude Code files", () => {
  const cc = importSession(fixtureText("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"), "claude-code");
  assert.equal(cc.compactions.length, 1);
  const [boundary] = cc.compactions;
  assert.equal(boundary.trigger, "manual");
  assert.ok(boundary.tokensBefore > 100_000);
  assert.match(boundary.summary, /continued from a previous conversation/);
  assert.equal(cc.history.length, 439);
  assert.equal(cc.messages.length, cc.history.length - boundary.summaryIndex, "the live context starts at the summary message");
  assert.deepEqual(cc.messages[0], cc.history[boundary.summaryIndex]);
  const pi = importSession(fixtureText("pi/before-compaction.jsonl"), "pi");
  assert.equal(pi.compactions.length, 2);
  const last = pi.compactions.at(-1);
  assert.equal(last.firstKeptEntryId, null, "a version 1 file has no entry ids: firstKeptEntryIndex is used");
  assert.equal(last.firstKeptIndex, 545);
  assert.equal(last.tokensBefore, 185014);
  assert.equal(pi.messages.length, 1 + pi.history.length - last.firstKeptIndex, "summary, then everything from the first kept message");
  assert.equal(pi.messages[0].role, "compactionSummary");
  assert.deepEqual(pi.messages.at(-1), pi.history.at(-1));
});

test("importSession: the live messages are the history's own objects from the kept point on", () => {
  const files = [
    ["pi/before-compaction.jsonl", "pi"],
    ["pi/large-session.jsonl", "pi"],
    ["claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl", "claude-code"],
    ["claude-code/subagent.jsonl", "claude-code"],
    ["claude-code/tool_heavy.jsonl", "claude-code"],
  ];
  let compacted = 0;
  for (const [file, kind] of files) {
    const s = importSession(fixtureText(file), kind);
    const last = s.compactions.at(-1);
    if (last === undefined) {
      assert.equal(s.messages.length, s.history.length, file);
      assert.ok(s.messages.every((m, i) => m === s.history[i]), `${file}: the same objects`);
      continue;
    }
    compacted += 1;
    // Either the recorded summary message and what follows it, or a summary made for the
    // context followed by the kept messages.
    const start = last.summaryIndex ?? last.firstKeptIndex ?? last.atMessage;
    const tail = s.history.slice(start);
    const head = s.messages.length - tail.length;
    assert.ok(head === 0 || head === 1, `${file}: head ${head}`);
    assert.ok(tail.every((m, i) => s.messages[head + i] === m), `${file}: the kept messages are the history's objects`);
    assert.deepEqual(structuredClone(s.messages.slice(head)), structuredClone(tail));
  }
  assert.ok(compacted > 0, "a fixture with a recorded compaction");
});
