// The "real client" proof for OpenAI chat completions: a hand-written tool-calling agent loop in
// OpenAI's own message format (assistant `tool_calls` with JSON-string arguments, `role: "tool"`
// results with `tool_call_id`), `maybeCompact` before every request, and a fake client that records
// every request body. Every recorded request must be valid for the API, and the session must end.
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

const isText = (content) =>
  (typeof content === "string" && content.length > 0) ||
  (Array.isArray(content) && content.length > 0 && content.every((p) => p.type === "text" && typeof p.text === "string" && p.text));

/** The chat completions rules a request's `messages` must follow, each broken one as a sentence. */
function openaiViolations(messages) {
  const problems = [];
  const seen = new Set();
  let pending = null; // ids of the calls of the assistant message the current tool block answers
  if (!Array.isArray(messages) || messages.length === 0) return ["messages is empty"];
  messages.forEach((m, i) => {
    const at = `messages[${i}] (${m.role})`;
    if (m.role !== "tool" && pending?.size) problems.push(`${at}: calls ${[...pending]} are not answered before it`);
    if (m.role !== "tool") pending = null;
    switch (m.role) {
      case "system":
      case "developer":
        if (!isText(m.content)) problems.push(`${at}: empty content`);
        if (messages.slice(0, i).some((p) => p.role !== "system" && p.role !== "developer")) problems.push(`${at}: not at the start`);
        break;
      case "user":
        if (!isText(m.content) && !(Array.isArray(m.content) && m.content.length)) problems.push(`${at}: empty content`);
        break;
      case "assistant": {
        const calls = m.tool_calls ?? [];
        if (m.tool_calls !== undefined && (!Array.isArray(m.tool_calls) || calls.length === 0)) problems.push(`${at}: tool_calls must be a non-empty array`);
        if (calls.length === 0 && !isText(m.content)) problems.push(`${at}: neither content nor tool_calls`);
        if (m.content != null && typeof m.content !== "string" && !Array.isArray(m.content)) problems.push(`${at}: bad content`);
        for (const c of calls) {
          if (typeof c.id !== "string" || !c.id || c.type !== "function" || typeof c.function?.name !== "string") {
            problems.push(`${at}: malformed tool call ${JSON.stringify(c).slice(0, 80)}`);
            continue;
          }
          if (seen.has(c.id)) problems.push(`${at}: duplicate tool call id ${c.id}`);
          seen.add(c.id);
          try {
            const args = JSON.parse(c.function.arguments);
            if (typeof args !== "object" || args === null || Array.isArray(args)) throw new Error("not an object");
          } catch {
            problems.push(`${at}: arguments of ${c.id} are not a JSON object string`);
          }
        }
        pending = new Set(calls.map((c) => c.id));
        break;
      }
      case "tool":
        if (!pending) problems.push(`${at}: tool message ${m.tool_call_id} does not follow an assistant message with tool_calls`);
        else if (!pending.delete(m.tool_call_id)) problems.push(`${at}: ${m.tool_call_id} answers no open call of the previous assistant message`);
        if (!isText(m.content) && m.content !== "") problems.push(`${at}: content must be text`);
        break;
      default:
        problems.push(`${at}: unknown role`);
    }
  });
  if (pending?.size) problems.push(`end: calls ${[...pending]} are not answered`);
  const last = messages.at(-1).role;
  if (last !== "user" && last !== "tool") problems.push(`the last message is ${last}, not user or tool`);
  return problems;
}

/** A fake OpenAI client: records each request body as sent on the wire, answers from the script. */
function fakeClient(turns) {
  const requests = [];
  const cursor = { turn: -1, step: 0 };
  const create = async (body) => {
    requests.push(JSON.parse(JSON.stringify(body)));
    const turn = turns[cursor.turn];
    const step = turn.steps[cursor.step++];
    const message = step
      ? {
          role: "assistant",
          content: step.text || null,
          tool_calls: step.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })),
        }
      : { role: "assistant", content: turn.final };
    return { id: `chatcmpl-${requests.length}`, object: "chat.completion", choices: [{ index: 0, message, finish_reason: step ? "tool_calls" : "stop" }] };
  };
  return { chat: { completions: { create } }, requests, startTurn: (i) => Object.assign(cursor, { turn: i, step: 0 }) };
}

async function runLoop(t, options) {
  const session = loadSession();
  const { turns } = session;
  const byId = new Map(turns.flatMap((turn) => turn.steps.flatMap((s) => s.calls.map((c) => [c.id, c]))));
  const stats = newStats();
  const problems = [];
  const { compactor, maybeCompact } = instrumentedCompactor("openai", options, stats, problems);
  const client = fakeClient(turns);
  const tools = toolNames(turns).map((name) => ({
    type: "function",
    function: { name, description: `Replayed ${name} tool`, parameters: { type: "object", additionalProperties: true } },
  }));

  let history = [{ role: "system", content: SYSTEM }];
  let finished = 0;
  let executed = 0;
  for (const [i, turn] of turns.entries()) {
    client.startTurn(i);
    history.push({ role: "user", content: turn.user });
    for (;;) {
      history = await maybeCompact(history);
      const response = await client.chat.completions.create({ model: "gpt-replay", messages: history, tools });
      const { message, finish_reason } = response.choices[0];
      history = [...history, message];
      if (finish_reason === "stop") break;
      for (const call of message.tool_calls) {
        const recorded = byId.get(call.id);
        assert.equal(call.function.name, recorded.name);
        executed += 1;
        history.push({ role: "tool", tool_call_id: call.id, content: recorded.output });
      }
    }
    assert.equal(history.at(-1).content, turn.final, `turn ${i} ends with the model's answer`);
    finished += 1;
  }

  client.requests.forEach((body, r) => {
    for (const p of openaiViolations(body.messages)) problems.push(`request ${r}: ${p}`);
    for (const v of validateMessages(body.messages, "openai")) problems.push(`request ${r}: validateMessages: ${v.kind} at ${v.path}`);
    if (body.messages[0]?.role !== "system" || body.messages[0].content !== SYSTEM) problems.push(`request ${r}: system prompt lost`);
    const summaries = body.messages.flatMap((m, k) => (JSON.stringify(m.content ?? "").includes(SUMMARY_MARK) ? [k] : []));
    if (summaries.length > 1 || (summaries.length === 1 && summaries[0] !== 1)) problems.push(`request ${r}: summary at ${summaries}`);
    if (summaries.length) stats.withSummary = (stats.withSummary ?? 0) + 1;
  });
  assertLoopCompleted(t, { session, turns, finished, executed, requests: client.requests.length, stats, problems });
}

test("the OpenAI request validator rejects what the API rejects", () => {
  const call = { id: "c1", type: "function", function: { name: "bash", arguments: "{}" } };
  const user = { role: "user", content: "go" };
  const ok = [user, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "c1", content: "x" }];
  assert.deepEqual(openaiViolations(ok), []);
  assert.equal(openaiViolations([user, { role: "tool", tool_call_id: "c1", content: "x" }]).length, 1, "orphaned result");
  assert.ok(openaiViolations([user, ok[1], user]).length >= 1, "unanswered call");
  assert.ok(openaiViolations([user, ok[1], user, ok[2]]).length >= 1, "result after another message");
  assert.ok(openaiViolations([user, { ...ok[1], tool_calls: [{ ...call, function: { name: "bash", arguments: "{" } }] }, ok[2]]).length >= 1);
});

// The default turn boundary ("split") and "snap".
test(
  "OpenAI chat completions loop with maybeCompact over a long real session",
  (t) => runLoop(t, {}),
);

test("OpenAI chat completions loop, turnBoundary: snap", (t) => runLoop(t, { turnBoundary: "snap" }));
