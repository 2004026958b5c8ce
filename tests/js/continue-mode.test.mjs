// The summary request that continues the conversation (docs/cost.md): with the claude-code preset
// on a real Claude Code session, the `history` request carries `mode: "continue"`, the caller's
// own messages as `conversation` and the `instruction` to send after them; `summaryMode:
// "transcript"` and a conversation that would not fit the window give the transcript request; a
// Session's request has the same shape as a Compactor's, its conversation as its render pipeline
// (pruning, cache markers) gave it to the model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, Session, importSession } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const session = importSession(fixtureText("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"), "claude-code");
const before = session.history.slice(0, session.compactions[0].atMessage);
// A window the history (about 72k estimated tokens) passes the trigger of, with room for the
// instruction and the 13,107-token answer.
const options = { preset: "claude-code", contextWindow: 90_000, reserveTokens: 20_000, summaryTokens: 13_107 };

/** `value` without Anthropic `cache_control` markers. */
function unmarked(value) {
  return JSON.parse(JSON.stringify(value, (k, v) => (k === "cache_control" ? undefined : v)));
}

async function requestOf(extra) {
  const requests = [];
  const c = new Compactor({ ...options, ...extra, summarize: (r) => (requests.push(r), "The work so far, in short.") });
  const compacted = await c.maybeCompact(before);
  c.free();
  assert.ok(compacted.length < before.length);
  return requests;
}

test("claude-code continues the conversation: the caller's messages, then the instruction", async () => {
  assert.equal(session.format, "anthropic");
  const [request, ...others] = await requestOf({});
  assert.equal(others.length, 0);
  assert.equal(request.purpose, "history");
  assert.equal(request.mode, "continue");
  assert.ok(request.instruction.startsWith("Stop working on the task"), request.instruction.slice(0, 80));
  assert.ok(request.instruction.includes("(the conversation above, up to this message)"));
  // Transcript fields stay, for a summarizer that only reads them.
  assert.ok(request.prompt.length > 0 && request.system.length > 0 && request.transcript.length > 0);
  const { conversation } = request;
  assert.equal(conversation.length, before.length);
  // The caller's own objects, except the last message of the model's previous request (before its
  // latest answer), which gains the cache marker the instruction is read after.
  const changed = conversation.map((m, i) => (m === before[i] ? -1 : i)).filter((i) => i >= 0);
  const tail = before.findLastIndex((m) => m.role === "assistant") - 1;
  assert.deepEqual(changed, [tail]);
  assert.deepEqual(unmarked(conversation), unmarked(before));
  assert.match(JSON.stringify(conversation[tail]), /"cache_control":\{"type":"ephemeral"\}/);
  assert.doesNotMatch(JSON.stringify(before[tail]), /cache_control/);
  // The instruction is the last thing sent: it comes after the whole conversation.
  const sent = [...conversation, { role: "user", content: request.instruction }];
  assert.equal(sent.at(-1).content, request.instruction);
});

test("summaryMode transcript, or a conversation that would not fit: the transcript request", async () => {
  const [chosen] = await requestOf({ summaryMode: "transcript" });
  assert.equal(chosen.mode, "transcript");
  assert.equal(chosen.conversation, undefined);
  assert.equal(chosen.instruction, undefined);
  // 72k + the instruction + the 13,107-token answer exceed 85,000: that request falls back.
  const [tight] = await requestOf({ contextWindow: 85_000, reserveTokens: 15_000 });
  assert.equal(tight.mode, "transcript");
  assert.equal(tight.conversation, undefined);
  assert.ok(tight.prompt.includes(tight.transcript));
});

test("Session.prepare sends the same request as Compactor.maybeCompact", async () => {
  const [fromCompactor] = await requestOf({});
  const requests = [];
  const s = new Session({ ...options, sessionId: "continue", summarize: (r) => (requests.push(r), "The work so far, in short.") });
  s.append(before);
  const rendered = await s.prepare();
  assert.equal(requests.length, 1);
  const [fromSession] = requests;
  assert.deepEqual(Object.keys(fromSession).sort(), Object.keys(fromCompactor).sort());
  for (const key of ["purpose", "mode", "instruction", "maxTokens", "round"]) {
    assert.deepEqual(fromSession[key], fromCompactor[key], key);
  }
  // The same messages; the Session's as its render gives them, with the cache markers of its
  // cache points (see the next test).
  assert.deepEqual(unmarked(fromSession.conversation), unmarked(fromCompactor.conversation));
  assert.ok(rendered.messages.length < before.length);
  s.free();
});

test("a Session's continuing request sends the conversation as its last prepare() rendered it", async () => {
  const requests = [];
  const s = new Session({
    preset: "claude-code",
    contextWindow: 200_000,
    prune: { style: "ttl", ttlMs: 60_000, keepRecent: 1, replacement: "[expired]" },
    summarize: (r) => (requests.push(r), "The work so far, in short."),
  });
  s.append(before);
  // An hour later: the old tool results are pruned by the render pipeline, and cache markers placed.
  const rendered = await s.prepare({ now: Date.now() + 3_600_000 });
  assert.equal(requests.length, 0, "below the trigger");
  assert.ok(JSON.stringify(rendered.messages).includes("[expired]"));
  assert.match(JSON.stringify(rendered.messages), /cache_control/);
  await s.compact();
  const [request] = requests;
  assert.equal(request.mode, "continue");
  assert.equal(JSON.stringify(request.conversation), JSON.stringify(rendered.messages));
  s.free();
});
