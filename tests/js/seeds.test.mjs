// The seeds' own examples through the package's JS API: seed 001's transcript, its tail of the
// last 10 messages with no second summarizer call, and gpt-4's 8,192-token window; seed 000's
// compaction entry fields and its "never cross the first compaction boundary" rule; seed 003's
// hidden blocks in the compaction digest; seed 004's workstream state delta and memory block in
// render(); pi's recorded usage in an imported session and its fork before the first entry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Compactor, Session } from "context-compaction";
import { fixturePath } from "./fixtures.mjs";

/** Seed 001's visual example, with a second request: [0] system, [1] "Build a flashcard app",
 * 12 call/result pairs, [26] "All tests pass", [27] "Add AI integration", 11 call/result pairs. */
function flashcards() {
  const call = (id) => ({ role: "assistant", content: [{ type: "text", text: `Step ${id}` }, { type: "tool-call", toolCallId: id, toolName: "writeFile", input: { path: `src/${id}.ts` } }] });
  const result = (id) => ({ role: "tool", content: [{ type: "tool-result", toolCallId: id, toolName: "writeFile", output: { type: "text", value: `wrote ${id} `.repeat(100) } }] });
  const out = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: "Build a flashcard app" }];
  for (let k = 0; k < 12; k += 1) out.push(call(`a${k}`), result(`a${k}`));
  out.push({ role: "assistant", content: "All tests pass" }, { role: "user", content: "Add AI integration" });
  for (let k = 0; k < 11; k += 1) out.push(call(`b${k}`), result(`b${k}`));
  return out;
}

test("seed 001: one summarizer call over seed 001's transcript; system + summary + the last 10 messages", async () => {
  const requests = [];
  const compactor = new Compactor({ preset: "compaction-layer", summarize: (req) => (requests.push(req), "Flashcards so far.") });
  const messages = flashcards();
  assert.equal(messages.length, 50);
  const result = await compactor.compact(messages);
  assert.equal(requests.length, 1, "a turn's start is summarized with the rest, in the one call");
  assert.equal(requests[0].purpose, "history");
  assert.equal(result.messages.length, 12);
  assert.equal(result.messages[0], messages[0]);
  assert.deepEqual(result.messages.slice(2), messages.slice(40));
  const t = requests[0].transcript;
  assert.ok(t.startsWith("[0] USER:\nBuild a flashcard app\n\n---\n\n[1] ASSISTANT:\nStep a0\n[Tool: writeFile({\"path\":\"src/a0.ts\"})]\n\n---\n\n[2] TOOL:\n[Result: \"wrote a0 "), t.slice(0, 300));
  const resultLine = t.split("\n").find((l) => l.startsWith("[Result: "));
  assert.equal(resultLine.length, "[Result: ".length + 500 + "...]".length, "results cut at 500 characters");
  assert.ok(requests[0].prompt.includes(t), "the prompt's Messages to Summarize section is the transcript");
});

test("seed 001: a message longer than 2,000 characters is cut with [...truncated...]", async () => {
  const requests = [];
  const compactor = new Compactor({ preset: "compaction-layer", summarize: (req) => (requests.push(req), "short") });
  const messages = flashcards();
  messages[1] = { role: "user", content: "x".repeat(2_500) };
  await compactor.compact(messages);
  assert.ok(requests[0].transcript.startsWith(`[0] USER:\n${"x".repeat(2_000)}\n[...truncated...]\n\n---\n\n`));
});

test("seed 001: gpt-4's 8,192-token window is accepted; more than keepLast + 1 messages fire", () => {
  const compactor = new Compactor({ preset: "compaction-layer", model: "gpt-4", summarize: () => "s" });
  const messages = [{ role: "system", content: "rules" }];
  for (let i = 0; i < 10; i += 1) messages.push({ role: i % 2 ? "assistant" : "user", content: `m${i}` });
  assert.equal(compactor.check(messages).shouldCompact, false, "11 messages: messages.length <= keepLast + 1");
  messages.push({ role: "user", content: "m10" });
  assert.equal(compactor.check(messages).shouldCompact, true, "12 messages fire whatever their tokens");
});

/** pi messages of seed 000's notation (u user, a assistant with one call per following t). */
function piMessages(items) {
  const out = [];
  let calls = [];
  items.forEach((item, i) => {
    if (item.startsWith("u")) out.push({ role: "user", content: [{ type: "text", text: item }] });
    else if (item.startsWith("a")) {
      const n = items.slice(i + 1).findIndex((x) => !x.startsWith("t"));
      const results = n < 0 ? items.length - i - 1 : n;
      calls = Array.from({ length: results }, (_, k) => `${item}-${i}-${k}`);
      out.push({ role: "assistant", content: [{ type: "text", text: item }, ...calls.map((id) => ({ type: "toolCall", id, name: "read", arguments: {} }))] });
    } else out.push({ role: "toolResult", toolCallId: calls.shift(), toolName: "read", content: [{ type: "text", text: item }], isError: false });
  });
  return out;
}

test("seed 000: compaction entries carry timestamp and keepLastMessages; the second never keeps what the first kept", async () => {
  const s = new Session({ preset: "pi-plan", contextWindow: 100_000, keepRecentTokens: 1, format: "pi", summarize: (req) => `summary ${req.round}` });
  s.append(piMessages(["u1", "a1", "t1", "t1", "a1", "u2", "a2", "u3", "a3", "t3", "a3", "t3", "a3", "u4", "a4", "t4", "a4"]));
  const before = Date.now();
  await s.compact();
  const entry = (log) => JSON.parse(log.trim().split("\n").at(-1));
  const first = entry(s.toJSONL());
  assert.equal(first.type, "compaction");
  assert.equal(first.keepLastMessages, 4, "u4, a4, t4, a4");
  assert.match(first.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Date.parse(first.timestamp) >= before - 1);
  s.append(piMessages(["u5", "a5"]));
  await s.compact();
  const second = entry(s.toJSONL());
  assert.equal(second.round, 2);
  assert.equal(second.keepLastMessages, 2, "only u5, a5: the messages after the first compaction");
  assert.deepEqual(s.render().messages.slice(1).map((m) => m.content[0].text), ["u5", "a5"]);
});

test("seed 003: the compaction digest lists hidden blocks with their replacement text", async () => {
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  const turn = (i, at) => [
    { role: "user", content: [{ type: "text", text: `request ${i}` }], timestamp: at },
    { role: "assistant", content: [{ type: "toolCall", id: `c${i}`, name: "grep", arguments: { pattern: `p${i}` } }], timestamp: at },
    { role: "toolResult", toolCallId: `c${i}`, toolName: "grep", content: [{ type: "text", text: `match ${i} `.repeat(50) }], isError: false, timestamp: at },
  ];
  const s = new Session({ preset: "block-pipeline", contextWindow: 100_000, keepRecentTokens: 50, format: "pi", prune: { style: "ttl", ttlMs: 60_000, keepRecent: 1, replacement: "[expired]" }, summarize: () => "S" });
  const ids = s.append([...turn(0, t0), ...turn(1, t0), ...turn(2, t0 + 120_000)]);
  await s.prepare({ now: t0 + 130_000 });
  await s.compact({ force: true });
  const compaction = s.toJSONL().trim().split("\n").map((l) => JSON.parse(l)).findLast((e) => e.type === "compaction");
  const hidden = compaction.digest.hidden;
  assert.ok(hidden.length >= 1, JSON.stringify(compaction.digest));
  assert.deepEqual(hidden[0], { entryId: ids[2], part: 0, tool: "grep", output: "[expired]" });
});

test("seed 004: the summarizer is asked for the state delta; a delta after its line is merged, not shown", async () => {
  const requests = [];
  const answer = (req) => {
    requests.push(req);
    return `KEY FACTS:\n- round ${req.round}\nCONVERSATION FLOW:\n- planned\nOPEN THREADS:\n- none\n\nWORKSTREAM STATE DELTA:\n${JSON.stringify(req.round === 1 ? { tasks: ["draft flow"], decisions: ["three steps"] } : { remove: { tasks: ["draft flow"] }, risks: ["deadline"] })}`;
  };
  const s = new Session({ preset: "workstream", summarize: answer });
  const turn = (i) => [{ role: "user", content: `request ${i} `.repeat(40) }, { role: "assistant", content: `answer ${i} `.repeat(40) }];
  for (let i = 0; i < 6; i += 1) s.append(turn(i));
  const first = await s.compact({ force: true });
  assert.match(requests[0].prompt, /a line WORKSTREAM STATE DELTA: followed by one JSON object/);
  assert.deepEqual(first.state, { decisions: ["three steps"], tasks: ["draft flow"] });
  assert.ok(!first.summary.includes("WORKSTREAM STATE DELTA"));
  for (let i = 6; i < 12; i += 1) s.append(turn(i));
  const second = await s.compact({ force: true });
  assert.match(requests[1].prompt, /<existing-workstream-state>\nWORKSTREAM STATE:\nKey decisions:\n- three steps\nTasks:\n- draft flow\n<\/existing-workstream-state>/);
  assert.deepEqual(second.state, { decisions: ["three steps"], risks: ["deadline"] });
});

test("seed 004: render() injects the memory block after the summary", async () => {
  const s = new Session({ preset: "workstream", summarize: () => "KEY FACTS:\n- a\nWORKSTREAM STATE DELTA:\n{}" });
  for (let i = 0; i < 8; i += 1) s.append({ role: i % 2 ? "assistant" : "user", content: i === 7 ? "m7" : `m${i} `.repeat(60) });
  s.addNote("The user prefers TypeScript");
  let r = s.render();
  assert.equal(r.messages.length, 9);
  assert.deepEqual(r.messages[0], { role: "system", content: "Memory notes:\n- The user prefers TypeScript" });
  await s.compact({ force: true });
  r = s.render();
  assert.equal(r.messages[0].role, "system");
  assert.match(r.messages[0].content, /^Compacted context summary:\nKEY FACTS:/);
  assert.equal(r.summaryIndex, 0);
  assert.deepEqual(r.messages[1], { role: "system", content: "Memory notes:\n- The user prefers TypeScript" });
  assert.equal(r.messages.at(-1).content, "m7");
  assert.deepEqual(r.messages, (await s.prepare()).messages);
});

test("pi: an imported session counts from pi's recorded usage and learns calibration from it", () => {
  const text = readFileSync(fixturePath("pi/before-compaction.jsonl"), "utf8");
  const s = Session.fromSessionFile(text, "pi", { preset: "pi", contextWindow: 200_000 });
  const c = s.check();
  assert.ok(c.calibration.samples > 0, JSON.stringify(c.calibration));
  // The usage of the last answered response (168,018) plus the package's estimate of what follows.
  assert.ok(c.tokens > 168_018 + 12_802, `${c.tokens}`);
  assert.equal(c.shouldCompact, true);
  assert.ok(s.toJSONL().split("\n").some((l) => l.includes('"type":"usage"')));
});

test("pi: branch(null) forks before the first entry", () => {
  const s = new Session({ contextWindow: 100_000, summarize: () => "s", sessionId: "orig" });
  s.append([{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }]);
  const empty = s.branch(null);
  assert.deepEqual(empty.render().messages, []);
  const lines = empty.toJSONL().trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines[0].branchedFrom, { session: "orig", entry: null });
  assert.equal(lines[1].type, "branch");
  assert.equal(lines[1].fromEntryId, null);
  empty.append({ role: "user", content: "again" });
  assert.equal(empty.render().messages.length, 1);
  assert.equal(s.render().messages.length, 2);
});
