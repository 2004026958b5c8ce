// convertMessages writes histories a provider accepts: a real pi session with an aborted turn has
// tool calls that never got a result, and converted as they are the AI SDK throws
// MissingToolResultsError. Like pi before it sends such a history, the conversion answers each
// with an error result, says which in `answeredCalls`, and `unansweredCalls: "keep"` leaves them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { CompactionError, convertMessages, importSession, validateMessages } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const history = importSession(fixtureText("pi/large-session.jsonl"), "pi").history;
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const model = () =>
  new MockLanguageModelV3({ doGenerate: async () => ({ content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) });
const unanswered = (messages, format) => validateMessages(messages, format).filter((v) => v.kind === "unanswered-call");

test("the real session has calls of an aborted turn that the AI SDK refuses as they are", async () => {
  const kept = convertMessages(history, { to: "ai-sdk", unansweredCalls: "keep" });
  assert.deepEqual(kept.answeredCalls, []);
  assert.ok(unanswered(kept, "ai-sdk").length > 0, "the fixture has unanswered calls");
  await assert.rejects(generateText({ model: model(), messages: kept }), (e) => e?.name === "AI_MissingToolResultsError");
});

test("converted to AI SDK, OpenAI and Anthropic, each unanswered call gets an error result and the history is accepted", async () => {
  const ids = unanswered(convertMessages(history, { to: "ai-sdk", unansweredCalls: "keep" }), "ai-sdk").map((v) => v.id);
  for (const to of ["ai-sdk", "openai", "anthropic", "langchain", "pi"]) {
    const out = convertMessages(history, { to });
    assert.deepEqual([...out.answeredCalls].sort(), [...ids].sort(), `${to}: the calls answered`);
    assert.deepEqual(unanswered(out, to), [], `${to}: no unanswered call`);
    assert.ok(!Object.keys(out).includes("answeredCalls"), "answeredCalls is not an element or an enumerable key");
    assert.equal(JSON.parse(JSON.stringify(out)).length, out.length);
  }
  const ai = convertMessages(history, { to: "ai-sdk" });
  const result = await generateText({ model: model(), messages: ai });
  assert.equal(result.text, "ok");
  // The synthetic result says what happened, as an error.
  const synthetic = ai.flatMap((m) => (m.role === "tool" ? m.content : [])).find((p) => p.toolCallId === ids[0]);
  assert.deepEqual(synthetic.output, { type: "error-text", value: "No result: the tool call was interrupted." });
  const anthropic = convertMessages(history, { to: "anthropic" });
  const block = anthropic.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b) => b.type === "tool_result" && b.tool_use_id === ids[0]);
  assert.equal(block.is_error, true);
});

test("the last assistant message's calls are pending, not unanswered; unansweredCalls is checked", () => {
  const messages = [
    { role: "user", content: "list" },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "ls", input: {} }] },
  ];
  const out = convertMessages(messages, { to: "openai" });
  assert.deepEqual(out.answeredCalls, []);
  assert.equal(out.length, 2);
  const interrupted = [...messages, { role: "user", content: "never mind" }];
  const answered = convertMessages(interrupted, { to: "openai" });
  assert.deepEqual(answered.answeredCalls, ["c1"]);
  assert.deepEqual(answered.map((m) => m.role), ["user", "assistant", "tool", "user"]);
  // Within one format too, unless kept.
  assert.equal(convertMessages(interrupted, { to: "ai-sdk" }).length, 4);
  assert.deepEqual(convertMessages(interrupted, { to: "ai-sdk", unansweredCalls: "keep" }), interrupted);
  assert.throws(
    () => convertMessages(interrupted, { to: "openai", unansweredCalls: "drop" }),
    (e) => e instanceof CompactionError && e.code === "INVALID_OPTIONS" && e.path === "options.unansweredCalls",
  );
});
