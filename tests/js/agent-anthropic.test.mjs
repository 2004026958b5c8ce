// The "real client" proof for the Anthropic Messages API: a hand-written tool-calling agent loop in
// Anthropic's own format (`tool_use` blocks in assistant messages, `tool_result` blocks in user
// messages, the system prompt outside the array), `maybeCompact` before every request, and a fake
// client that records every request body. Every recorded request must be valid for the API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateMessages } from "context-compaction";
import {
  SUMMARY_MARK,
  budget,
  instrumentedCompactor,
  loadSession,
  newStats,
  toolNames,
  assertLoopCompleted,
} from "./replay.mjs";

const SYSTEM = "You are a coding agent working in the pi-mono repository. Use the tools.";

const blocks = (content) => (typeof content === "string" ? [{ type: "text", text: content }] : content);

/** The Messages API rules a request's `messages` must follow, each broken one as a sentence. */
function anthropicViolations(messages) {
  const problems = [];
  if (!Array.isArray(messages) || messages.length === 0) return ["messages is empty"];
  // The API merges consecutive messages of the same role; the rules hold for the merged turns.
  const turns = [];
  messages.forEach((m, i) => {
    if (m.role !== "user" && m.role !== "assistant") problems.push(`messages[${i}]: role ${m.role} (system goes outside the array)`);
    if (!Array.isArray(m.content) && typeof m.content !== "string") problems.push(`messages[${i}]: bad content`);
    const content = blocks(m.content ?? []);
    if (content.length === 0) problems.push(`messages[${i}]: empty content`);
    for (const b of content) if (b.type === "text" && !b.text) problems.push(`messages[${i}]: empty text block`);
    if (turns.at(-1)?.role === m.role) turns.at(-1).content.push(...content);
    else turns.push({ role: m.role, content: [...content], from: i });
  });
  if (turns[0].role !== "user") problems.push("the first message is not a user message");
  if (turns.at(-1).role !== "user") problems.push("the last message is not a user message");
  const seen = new Set();
  let open = new Set(); // tool_use ids of the previous assistant turn
  for (const turn of turns) {
    const at = `turn from messages[${turn.from}] (${turn.role})`;
    if (turn.role === "assistant") {
      if (turn.content.some((b) => b.type === "tool_result")) problems.push(`${at}: tool_result in an assistant message`);
      const uses = turn.content.filter((b) => b.type === "tool_use");
      for (const u of uses) {
        if (typeof u.id !== "string" || !/^[a-zA-Z0-9_-]+$/.test(u.id)) problems.push(`${at}: bad tool_use id ${u.id}`);
        if (seen.has(u.id)) problems.push(`${at}: duplicate tool_use id ${u.id}`);
        if (typeof u.name !== "string" || typeof u.input !== "object" || u.input === null) problems.push(`${at}: malformed tool_use ${u.id}`);
        seen.add(u.id);
      }
      open = new Set(uses.map((u) => u.id));
      continue;
    }
    if (turn.content.some((b) => b.type === "tool_use")) problems.push(`${at}: tool_use in a user message`);
    const results = turn.content.filter((b) => b.type === "tool_result");
    const firstOther = turn.content.findIndex((b) => b.type !== "tool_result");
    if (firstOther !== -1 && firstOther < results.length) problems.push(`${at}: tool_result blocks do not come first`);
    for (const r of results) {
      if (!open.delete(r.tool_use_id)) problems.push(`${at}: tool_result ${r.tool_use_id} answers no tool_use of the previous assistant message`);
    }
    if (open.size) problems.push(`${at}: tool_use ${[...open]} not answered in the next user message`);
    open = new Set();
  }
  return problems;
}

/** A fake Anthropic client: records each request body as sent on the wire, answers from the script. */
function fakeClient(turns) {
  const requests = [];
  const cursor = { turn: -1, step: 0 };
  const create = async (body) => {
    requests.push(JSON.parse(JSON.stringify(body)));
    const turn = turns[cursor.turn];
    const step = turn.steps[cursor.step++];
    const content = step
      ? [
          ...(step.text ? [{ type: "text", text: step.text }] : []),
          ...step.calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
        ]
      : [{ type: "text", text: turn.final }];
    return { id: `msg_${requests.length}`, type: "message", role: "assistant", content, stop_reason: step ? "tool_use" : "end_turn" };
  };
  return { messages: { create }, requests, startTurn: (i) => Object.assign(cursor, { turn: i, step: 0 }) };
}

test("the Anthropic request validator rejects what the API rejects", () => {
  const use = { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] };
  const result = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "x" }] };
  const user = { role: "user", content: "go" };
  assert.deepEqual(anthropicViolations([user, use, result, user]), []);
  assert.ok(anthropicViolations([use, result]).length >= 1, "first message is an assistant message");
  assert.ok(anthropicViolations([user, result]).length >= 1, "orphaned result");
  assert.ok(anthropicViolations([user, use, user]).length >= 1, "unanswered tool_use");
  assert.ok(anthropicViolations([user, use, user, result]).length >= 1, "tool_result after text");
  assert.ok(anthropicViolations([user, use, result, { role: "assistant", content: "ok" }]).length >= 1, "ends with assistant");
  assert.ok(anthropicViolations([{ role: "system", content: "s" }, user]).length >= 1, "system in the array");
});

async function runLoop(t, options) {
  const session = loadSession();
  const { turns } = session;
  const byId = new Map(turns.flatMap((turn) => turn.steps.flatMap((s) => s.calls.map((c) => [c.id, c]))));
  const stats = newStats();
  const problems = [];
  const { compactor, maybeCompact } = instrumentedCompactor("anthropic", options, stats, problems);
  const client = fakeClient(turns);
  const tools = toolNames(turns).map((name) => ({
    name,
    description: `Replayed ${name} tool`,
    input_schema: { type: "object", additionalProperties: true },
  }));

  let history = [];
  let finished = 0;
  let executed = 0;
  for (const [i, turn] of turns.entries()) {
    client.startTurn(i);
    history.push({ role: "user", content: turn.user });
    for (;;) {
      history = await maybeCompact(history);
      const body = { model: "claude-replay", max_tokens: 4096, system: SYSTEM, messages: history, tools };
      const response = await client.messages.create(body);
      history = [...history, { role: "assistant", content: response.content }];
      if (response.stop_reason === "end_turn") break;
      const results = response.content
        .filter((b) => b.type === "tool_use")
        .map((use) => {
          const recorded = byId.get(use.id);
          assert.equal(use.name, recorded.name);
          executed += 1;
          return { type: "tool_result", tool_use_id: use.id, content: recorded.output, ...(recorded.isError ? { is_error: true } : {}) };
        });
      history.push({ role: "user", content: results });
    }
    assert.equal(history.at(-1).content[0].text, turn.final, `turn ${i} ends with the model's answer`);
    finished += 1;
  }

  client.requests.forEach((body, r) => {
    for (const p of anthropicViolations(body.messages)) problems.push(`request ${r}: ${p}`);
    for (const v of validateMessages(body.messages, "anthropic")) problems.push(`request ${r}: validateMessages: ${v.kind} at ${v.path}`);
    if (body.system !== SYSTEM) problems.push(`request ${r}: system prompt changed`);
    const summaries = body.messages.flatMap((m, k) => (JSON.stringify(m.content).includes(SUMMARY_MARK) ? [k] : []));
    if (summaries.length > 1 || (summaries.length === 1 && summaries[0] !== 0)) problems.push(`request ${r}: summary at ${summaries}`);
    if (summaries.length) stats.withSummary = (stats.withSummary ?? 0) + 1;
  });
  assertLoopCompleted(t, { session, turns, finished, executed, requests: client.requests.length, stats, problems });
}

// The default turn boundary ("split") and "snap".
test(
  "Anthropic messages loop with maybeCompact over a long real session",
  (t) => runLoop(t, {}),
);

test("Anthropic messages loop, turnBoundary: snap", (t) => runLoop(t, { turnBoundary: "snap" }));
