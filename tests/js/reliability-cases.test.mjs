// The cases of design/reliability.md not covered elsewhere (docs/reliability.md maps every case to
// its test), through the public API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, CompactionError, validateMessages } from "context-compaction";
import { aiSdkHistory } from "./history.mjs";

const summarize = (r) => `Summary of ${r.messages.length} messages (round ${r.round}).`;
const base = { contextWindow: 32_000, keepRecentTokens: 3_000, retries: 0, summarize };
const code = (c, path) => (e) => e instanceof CompactionError && e.code === c && (path === undefined || e.path === path);

test("case 1: a non-array is INVALID_INPUT at messages; case 2: a message without role names messages[i].role", async () => {
  const c = new Compactor(base);
  for (const bad of [{}, "messages", 42, null]) {
    await assert.rejects(c.compact(bad), code("INVALID_INPUT", "messages"));
    assert.throws(() => c.check(bad), code("INVALID_INPUT", "messages"));
  }
  const history = aiSdkHistory(3);
  const snapshot = structuredClone(history);
  delete history[2].role;
  const frozen = structuredClone(history);
  await assert.rejects(c.compact(history), code("INVALID_INPUT", "messages[2].role"));
  assert.deepEqual(history, frozen, "nothing changed");
  assert.notDeepEqual(snapshot, frozen);
});

test("case 5: an empty history is a no-op and summarize is never called", async () => {
  const c = new Compactor({ ...base, summarize: () => assert.fail("no call") });
  const result = await c.compact([], { force: true });
  assert.equal(result.compacted, false);
  assert.deepEqual(result.messages, []);
  assert.deepEqual(await c.maybeCompact([]), []);
});

test("case 6: a duplicate tool-call id is reported, and compaction never pairs across it", async () => {
  const history = aiSdkHistory(12);
  // Turn 11 reuses turn 0's call id.
  const late = history.findIndex((m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some((p) => p.toolCallId === "c11"));
  history[late].content[1].toolCallId = "c0";
  history[late + 1].content[0].toolCallId = "c0";
  assert.ok(validateMessages(history).some((v) => v.kind === "duplicate-call-id"));
  const result = await new Compactor(base).compact(history, { force: true });
  // The kept copy of c0 keeps its own result right after it.
  const kept = result.messages;
  const at = kept.findIndex((m) => Array.isArray(m.content) && m.content.some((p) => p.type === "tool-call" && p.toolCallId === "c0"));
  if (at >= 0) assert.equal(kept[at + 1].content[0].toolCallId, "c0");
  const before = new Set(validateMessages(history).map((v) => v.kind));
  for (const v of validateMessages(kept)) assert.ok(before.has(v.kind), v.kind);
});

test("case 8: ten parallel calls with results in shuffled order are kept or removed as one unit", async () => {
  const history = aiSdkHistory(8);
  const calls = Array.from({ length: 10 }, (_, i) => ({ type: "tool-call", toolCallId: `p${i}`, toolName: "read", input: { path: `src/p${i}.rs` } }));
  const order = [7, 2, 9, 0, 5, 3, 8, 1, 6, 4];
  history.push({ role: "user", content: "Read all ten." });
  history.push({ role: "assistant", content: calls });
  for (const i of order) history.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `p${i}`, toolName: "read", output: { type: "text", value: "x".repeat(900) } }] });
  history.push({ role: "assistant", content: "Read them." });
  for (const keep of [500, 1_500, 3_000, 6_000, 12_000]) {
    const result = await new Compactor({ ...base, keepRecentTokens: keep }).compact(history, { force: true });
    const ids = (ms) => ms.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.toolCallId?.startsWith("p")).length;
    const kept = ids(result.messages);
    assert.ok(kept === 0 || kept === 20, `keep ${keep}: ${kept} of 20 parts kept`);
    assert.deepEqual(validateMessages(result.messages), []);
  }
});

test("case 11: one tool output ten times the budget is cut in the summarizer's input; the original is in removed", async () => {
  const history = aiSdkHistory(6);
  const huge = "line of a huge log\n".repeat(20_000);
  history.splice(3, 1, { role: "tool", content: [{ type: "tool-result", toolCallId: "c0", toolName: "read", output: { type: "text", value: huge } }] });
  const requests = [];
  const result = await new Compactor({ ...base, contextWindow: 40_000, summarize: (r) => (requests.push(r), summarize(r)) }).compact(history, { force: true });
  assert.ok(requests.every((r) => r.transcript.length < huge.length / 10), "cut in the transcript");
  assert.ok(result.removed.some((m) => m.content?.[0]?.output?.value === huge), "the original object is in removed");
});

test("case 12: 50 MB of base64 images are placeholders for the summarizer and priced by rule", async () => {
  const image = "A".repeat(5_000_000);
  const history = aiSdkHistory(4);
  for (let i = 0; i < 10; i++) history.splice(1, 0, { role: "user", content: [{ type: "text", text: `screenshot ${i}` }, { type: "image", image, mediaType: "image/png" }] }, { role: "assistant", content: `Seen ${i}.` });
  const c = new Compactor({ ...base, contextWindow: 200_000 });
  const estimate = c.estimate(history);
  assert.ok(estimate.byKind.images < 20_000, `images by rule, not bytes: ${estimate.byKind.images}`);
  const requests = [];
  await new Compactor({ ...base, contextWindow: 200_000, keepRecentTokens: 1_000, summarize: (r) => (requests.push(r), summarize(r)) }).compact(history, { force: true });
  assert.ok(requests.length > 0 && requests.every((r) => r.transcript.length < 100_000));
  assert.match(requests[0].transcript, /\[image/);
});

test("case 25: the same input gives byte-identical output; compacting the output again with nothing new is a no-op", async () => {
  const history = aiSdkHistory(20);
  const a = await new Compactor(base).compact(history, { force: true });
  const b = await new Compactor(base).compact(structuredClone(history), { force: true });
  assert.equal(JSON.stringify(a.messages), JSON.stringify(b.messages));
  assert.equal(a.summary, b.summary);
  const again = await new Compactor(base).compact(a.messages);
  assert.equal(again.compacted, false, again.warnings.join("; "));
  assert.deepEqual(again.messages, a.messages);
});
