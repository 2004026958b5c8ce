// Summary quality on the real sessions of tests/fixtures: every preset's own prompt on every
// request (chunked or not), nothing the agent needs lost before the model sees it (queued user
// messages, error lines, requests, pending tasks), Claude Code's answer without its analysis, and
// the fact-retention evaluation above its recorded floor on the held-out sessions and the tuning
// set (the short form of `npm run eval`), and the extractive summary's budget spent by priority.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Compactor, countTokens, importSession } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";
import { KINDS, SETS, evaluate, floorFailures, totals } from "../../bench/quality-facts.mjs";

const CLAUDE_MARK = "9. Optional Next Step";
const MARKS = {
  "claude-code": CLAUDE_MARK,
  codex: "CONTEXT CHECKPOINT COMPACTION",
  "pi-plan": "Absolute file paths of any relevant files",
  opencode: "Summarize our conversation above.",
  "compaction-layer": "### Session Summary (Compaction Round",
};

const pi = () => importSession(fixtureText("pi/large-session.jsonl"), "pi");

async function requestsOf(options, messages) {
  const requests = [];
  const compactor = new Compactor({ retryDelayMs: 1, ...options, summarize: (r) => (requests.push(r), "Short summary.") });
  const result = await compactor.compact(messages);
  return { requests, result };
}

test("a preset sends its own prompt in one request while the transcript fits the summarizer's window", async () => {
  const { format, history } = pi();
  for (const [preset, mark] of Object.entries(MARKS)) {
    const { requests } = await requestsOf({ preset, contextWindow: 400_000, format }, history);
    const pieces = requests.filter((r) => r.purpose !== "turn-prefix");
    assert.equal(pieces.length, 1, `${preset}: ${pieces.map((r) => r.purpose)}`);
    assert.equal(pieces[0].purpose, "history", preset);
    assert.ok(pieces[0].transcript.length > 120_000, `${preset}: more than the old 120,000-character rule`);
    assert.ok(pieces[0].prompt.includes(mark), `${preset}: its own prompt`);
  }
});

test("past the window every chunk keeps the preset's structure; workstream keeps its 120,000 characters", async () => {
  const { format, history } = pi();
  for (const [preset, mark] of Object.entries(MARKS)) {
    const { requests } = await requestsOf({ preset, contextWindow: 60_000, format }, history);
    const chunks = requests.filter((r) => r.purpose === "chunk");
    assert.ok(chunks.length >= 2, `${preset}: chunked`);
    for (const r of requests) assert.ok(r.prompt.includes(mark), `${preset} ${r.purpose}: ${r.prompt.slice(-300)}`);
    assert.match(chunks[1].prompt, /part 2\b/);
  }
  const { requests } = await requestsOf({ preset: "workstream", contextWindow: 400_000, format, transcript: { toolAllow: ["*"] } }, history);
  assert.ok(requests.filter((r) => r.purpose === "chunk").length >= 2);
  assert.ok(requests.every((r) => r.transcript.length <= 120_000));
  // The option says which: a number is the character rule, "window" the summarizer's window.
  const chars = await requestsOf({ preset: "claude-code", contextWindow: 400_000, format, chunkChars: 120_000 }, history);
  assert.ok(chars.requests.filter((r) => r.purpose === "chunk").length >= 2);
  const windowed = await requestsOf({ contextWindow: 400_000, format, chunkChars: "window" }, history);
  assert.equal(windowed.requests.filter((r) => r.purpose === "chunk").length, 0);
  assert.throws(() => new Compactor({ contextWindow: 400_000, chunkChars: "chars", summarize: "extractive" }), (e) => e.code === "INVALID_OPTIONS" && /chunkChars/.test(e.message));
});

test("on the held-out sessions too, every preset's own prompt is on every request, whole or chunked", async () => {
  for (const name of ["258c7280-ae70-4798-800f-63464d01a85d.jsonl", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"]) {
    const { format, history } = importSession(fixtureText(`heldout/claude-code/${name}`), "claude-code");
    for (const [preset, mark] of Object.entries(MARKS)) {
      const whole = await requestsOf({ preset, contextWindow: 400_000, format }, history);
      const pieces = whole.requests.filter((r) => r.purpose !== "turn-prefix");
      assert.equal(pieces.length, 1, `${name} ${preset}: one request`);
      const chunked = await requestsOf({ preset, contextWindow: 400_000, format, chunkChars: 40_000 }, history);
      assert.ok(chunked.requests.filter((r) => r.purpose === "chunk").length >= 2, `${name} ${preset}: chunked`);
      for (const r of [...whole.requests, ...chunked.requests]) assert.ok(r.prompt.includes(mark), `${name} ${preset} ${r.purpose}`);
    }
  }
});

test("claude-code asks for an analysis then a summary without tools, and keeps only the summary", async () => {
  const { format, history } = pi();
  const requests = [];
  const answer = "<analysis>\nGoing through it in order: THINKING-ONLY.\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   Refactor.\n</summary>";
  const compactor = new Compactor({ preset: "claude-code", contextWindow: 400_000, format, summarize: (r) => (requests.push(r), answer) });
  const result = await compactor.compact(history);
  const prompt = requests[0].prompt;
  for (const part of ["<analysis>", "<summary>", "<example>", "Do not call any tool", "Your task is to create a detailed summary of the conversation so far"]) {
    assert.ok(prompt.includes(part), part);
  }
  assert.ok(!result.summary.includes("THINKING-ONLY"), "the analysis is not kept");
  assert.ok(!result.summary.includes("<summary>"));
  assert.match(result.summary, /^1\. Primary Request and Intent:/);
});

test("a history that opens with Claude Code's own summary keeps that summary whole", async () => {
  const cc = importSession(fixtureText("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"), "claude-code");
  const result = await new Compactor({ preset: "claude-code", contextWindow: 200_000, format: cc.format, summarize: "extractive" }).compact(cc.messages);
  assert.ok(!/that ran out of context/.test(result.summary.split("\n").slice(0, 6).join("\n")), result.summary.slice(0, 400));
  assert.match(result.summary, /## Earlier summary\n(Analysis:\n)?[\s\S]*Primary Request and Intent/);
  assert.match(result.summary, /## Earlier summary\nAnalysis:\nLet me chronologically analyze/);
});

test("errors show the line with the error, requests only what the user typed, and the pending tasks", async () => {
  const cc = importSession(fixtureText("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"), "claude-code");
  const part = cc.history.slice(0, cc.compactions[0].atMessage);
  const result = await new Compactor({ preset: "claude-code", contextWindow: 200_000, format: cc.format, summarize: "extractive" }).compact(part);
  const { errors, userRequests, commands } = result.digest;
  assert.ok(errors.length > 0);
  for (const e of errors) assert.doesNotMatch(e, /: Exit code \d+$/, e);
  assert.ok(errors.some((e) => e.includes("Pre-commit validation failed: [DIALYZER]")), errors.join("\n"));
  assert.ok(errors.some((e) => e.includes("permission denied")), errors.join("\n"));
  // The earliest command is kept too.
  const first = part.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b) => b.type === "tool_use" && b.name === "Bash");
  assert.ok(commands[0].startsWith(first.input.command.split("\n")[0].slice(0, 40)), commands[0]);
  const heavy = importSession(fixtureText("claude-code/tool_heavy.jsonl"), "claude-code");
  const h = await new Compactor({ preset: "claude-code", contextWindow: 200_000, format: heavy.format, summarize: "extractive" }).compact(heavy.history);
  for (const r of h.digest.userRequests) assert.doesNotMatch(r, /^\[Request interrupted by user|^<local-command-|^<task-notification>/, r);
  assert.ok(h.digest.userRequests.some((r) => r.startsWith("start phoenix in background")));
  for (const r of userRequests) assert.doesNotMatch(r, /^\[Request interrupted by user|^<task-notification>/, r);
  // A to-do list: its open items are the pending tasks, in the digest and the extractive summary.
  const todo = [
    ...part,
    { role: "assistant", content: [{ type: "tool_use", id: "todo1", name: "TodoWrite", input: { todos: [
      { content: "Fix the Dialyzer false positive", status: "in_progress", activeForm: "Fixing" },
      { content: "Trace LiveView interactions", status: "pending", activeForm: "Tracing" },
      { content: "Add OTEL dependencies", status: "completed", activeForm: "Adding" },
    ] } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "todo1", content: "Todos have been modified successfully." }] },
  ];
  const t = await new Compactor({ preset: "claude-code", contextWindow: 200_000, format: cc.format, summarize: "extractive" }).compact(todo);
  assert.deepEqual(t.digest.pendingTasks, ["Fix the Dialyzer false positive (in progress)", "Trace LiveView interactions"]);
  assert.match(t.summary, /## Pending tasks\n- Fix the Dialyzer false positive \(in progress\)\n- Trace LiveView interactions/);
  // The result reports what the summary kept.
  assert.equal(t.digest.retention.kinds.pendingTasks.total, 2);
  assert.ok(t.digest.retention.recall > 0.9 && t.digest.retention.recall <= 1);
});

test("a queued message is imported as a user message where the agent saw it", () => {
  const text = fixtureText("claude-code/tool_heavy.jsonl").replace('"content":"/mcp"}', '"content":"new beads for the epic were added. tackle them"}');
  const s = importSession(text, "claude-code");
  const at = s.history.findIndex((m) => m.role === "user" && m.content === "new beads for the epic were added. tackle them");
  assert.ok(at > 0);
  assert.ok(s.history[at - 1].content.every((b) => b.type === "tool_result"));
  assert.equal(s.history[at + 1].role, "assistant");
});

test("the fact-retention evaluation stays above its recorded floor, on the held-out sessions and the tuning set", async () => {
  const floor = JSON.parse(readFileSync(new URL("../../bench/quality-floor.json", import.meta.url), "utf8"));
  const rows = await evaluate();
  for (const set of SETS) {
    const sums = totals(rows.filter((r) => r.set === set));
    assert.ok(sums.length >= 3, set);
    assert.ok(sums.find((t) => t.what === "extractive summary").sessions >= 5, `${set}: at least five sessions`);
    for (const [what, kinds] of Object.entries(floor[set])) {
      for (const kind of Object.keys(kinds)) assert.ok(kind === "all" || kind === "maxTokens" || KINDS.includes(kind), kind);
      assert.ok(sums.some((t) => t.what === what), `${set}: ${what}`);
    }
  }
  assert.deepEqual(floorFailures(rows, floor), []);
  // The held-out targets: the extractive summary keeps every user request and at least 98% of
  // all facts (errors 95%) in at most 2,000 tokens per session; the request sent keeps everything.
  const held = totals(rows.filter((r) => r.set === "held-out"));
  const ex = held.find((t) => t.what === "extractive summary");
  assert.ok(ex.maxTokens <= 2_000, `${ex.maxTokens}`);
  assert.equal(ex.recall.requests.kept, ex.recall.requests.total);
  assert.ok(ex.recall.all.kept / ex.recall.all.total >= 0.98 && ex.recall.errors.kept / ex.recall.errors.total >= 0.95);
  const sent = held.find((t) => t.what === "request sent");
  for (const k of [...KINDS, "all"]) assert.equal(sent.recall[k].kept, sent.recall[k].total, k);
  // The request is capped per session too (the transcript trimmed, `transcript.trim`): about half
  // of what the untrimmed request took (44,152 and 114,470 tokens at most).
  for (const set of SETS) {
    const cap = floor[set]["request sent"].maxTokens;
    assert.ok(Number.isInteger(cap), `${set}: the request sent has a token cap`);
    const most = totals(rows.filter((r) => r.set === set)).find((t) => t.what === "request sent").maxTokens;
    assert.ok(most <= cap, `${set}: ${most} > ${cap}`);
  }
});

test("the extractive summary keeps every user request of a long session, shortened, within 2,000 tokens", async () => {
  const { format, history } = pi();
  const result = await new Compactor({ preset: "claude-code", contextWindow: 200_000, format, summarize: "extractive" }).compact(history);
  const requests = result.digest.userRequests;
  assert.ok(requests.length > 60, `${requests.length}: more than the old budget of 60`);
  assert.ok(countTokens(result.summary, "o200k_base") <= 2_000);
  const section = result.summary.split("## User requests\n")[1].split("\n\n## ")[0];
  const shown = section.split("\n").map((l) => l.replace(/^- /, ""));
  // Every request is shown by its beginning (two that begin alike are listed once).
  for (const r of requests) assert.ok(shown.some((l) => r.startsWith(l.replace(/…$/, ""))), r);
  assert.ok(shown.some((l) => l.endsWith("…")), "the long ones shortened");
});
