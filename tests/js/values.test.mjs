// Values that must survive the package: a `Date` field is kept as its ISO string (as
// JSON.stringify writes it) in the log, in a rewritten message and in converted messages; a lone
// surrogate in message text comes back as itself from a rewritten message, a conversion, a
// `toJSONL` / `fromJSONL` round trip (where the log holds the `\udXXX` escape JSON.stringify writes)
// and in the summarizer's request; long texts cross whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, Session, convertMessages, countTokens, estimateTokens } from "context-compaction";

const when = new Date("2026-01-02T03:04:05.678Z");
const lone = "cut emoji \ud83d here, a low one \ude00, a pair \ud83d\ude00, a mark \ufdd0\ue000";
const options = { contextWindow: 100_000, summarize: "extractive" };

test("a Date field is its ISO string in the log, in a pruned copy and in converted messages", () => {
  const session = new Session(options);
  session.append({ role: "user", content: "hello", sentAt: when });
  const logged = session.toJSONL().split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.type === "message");
  assert.equal(JSON.stringify(logged).includes(JSON.stringify(when.toISOString())), true, JSON.stringify(logged));
  assert.equal(session.render().messages[0].sentAt, when, "the live context holds your own object");
  const reloaded = Session.fromJSONL(session.toJSONL(), options);
  assert.equal(reloaded.render().messages[0].sentAt, when.toISOString());
  session.free();
  reloaded.free();

  const invalid = new Date(NaN);
  const [converted] = convertMessages([{ role: "user", content: [{ type: "text", text: "hi" }], sentAt: when, at: invalid }], { from: "pi", to: "pi" });
  assert.equal(converted.sentAt, when.toISOString());
  assert.equal(converted.at, null);

  // A pruned copy (a changed message) carries the ISO string; unchanged messages are yours.
  const output = "x".repeat(4000);
  const history = [];
  for (let i = 0; i < 4; i += 1) {
    history.push({ role: "user", content: `read file ${i}` });
    history.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "read", input: { path: "a.txt" } }] });
    history.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `c${i}`, toolName: "read", output: { type: "text", value: output } }], at: when });
  }
  const compactor = new Compactor({ ...options, prune: { style: "anthropic", keep: 1 } });
  const pruned = compactor.prune(history);
  const changed = pruned.filter((m, i) => m !== history[i]);
  assert.ok(changed.length > 0);
  for (const m of changed) assert.equal(m.at, when.toISOString());
  assert.ok(history.every((m) => m.role !== "tool" || m.at === when), "the input is not changed");
  compactor.free();
});

test("lone surrogates survive a rewrite, a conversion and a toJSONL / fromJSONL round trip", () => {
  const session = new Session(options);
  session.append([{ role: "user", content: lone }, { role: "assistant", content: "ok " + lone }]);
  const log = session.toJSONL();
  // The log holds the escapes JSON.stringify writes, and no replacement character.
  assert.ok(log.includes(JSON.stringify(lone).slice(1, -1)), log);
  assert.ok(!log.includes("\ufffd"));
  const reloaded = Session.fromJSONL(log, options);
  assert.deepEqual(reloaded.render().messages.map((m) => m.content), [lone, "ok " + lone]);
  assert.equal(reloaded.toJSONL(), log);
  // A log written by JSON.stringify (the caller's own tooling) reads the same.
  const lines = log.split("\n").filter(Boolean).map((l) => JSON.stringify(JSON.parse(l)));
  const rewritten = Session.fromJSONL(lines.join("\n") + "\n", options);
  assert.deepEqual(rewritten.render().messages.map((m) => m.content), [lone, "ok " + lone]);
  for (const s of [session, reloaded, rewritten]) s.free();

  const [converted] = convertMessages([{ role: "user", content: lone }], { from: "openai", to: "anthropic" });
  assert.equal(JSON.stringify(converted.content).includes(JSON.stringify(lone).slice(1, -1)), true, JSON.stringify(converted));
  const long = lone + "y".repeat(5000);
  const [longConverted] = convertMessages([{ role: "user", content: long }], { from: "openai", to: "ai-sdk" });
  assert.equal(JSON.stringify(longConverted).includes(JSON.stringify(long).slice(1, -1)), true);
});

test("long texts cross whole: ASCII, non-ASCII and astral texts of every length come back the same", () => {
  for (const unit of ["word ", "Grüße 世界 ", "emoji 😀 ", "x"]) {
    for (const repeat of [1, 30, 300, 30_000]) {
      const text = unit.repeat(repeat);
      const session = new Session(options);
      session.append({ role: "user", content: text });
      const log = session.toJSONL();
      const back = Session.fromJSONL(log, options);
      assert.equal(back.render().messages[0].content, text, `${unit} × ${repeat}`);
      // Long texts count as they are: equal to counting the text split where no piece crosses.
      assert.equal(importedCount(text), countTokens(text, "o200k_base"));
      session.free();
      back.free();
    }
  }
  // A lone surrogate reads as U+FFFD in a count, as it always has.
  const half = "word ".repeat(10_000);
  assert.equal(countTokens(half + "\ud83d", "o200k_base"), countTokens(half + "\ufffd", "o200k_base"));
  assert.equal(estimateTokens(half + "\ud83d"), estimateTokens(half + "\ufffd"));
});

/** The exact count of `text` through a message (the walk's long-string path), minus the message's own. */
function importedCount(text) {
  const compactor = new Compactor({ ...options, tokenizer: "o200k_base" });
  const [a, b] = compactor.estimate([{ role: "user", content: text }, { role: "user", content: "" }]).perMessage;
  compactor.free();
  return a - b;
}

test("a lone surrogate reaches the summarizer's request as the caller wrote it", async () => {
  const requests = [];
  const compactor = new Compactor({
    contextWindow: 100_000,
    summarize: async (request) => {
      requests.push(request);
      return "the summary";
    },
  });
  const history = [];
  for (let i = 0; i < 12; i += 1) {
    history.push({ role: "user", content: `question ${i}: ${lone} ${"word ".repeat(5000)}` });
    history.push({ role: "assistant", content: `answer ${i}` });
  }
  const result = await compactor.compact(history);
  assert.equal(result.compacted, true);
  const [first] = requests;
  // The core's marks (src/core/surrogates.rs) never reach the caller: the text is theirs.
  assert.ok(first.transcript.includes(`question 0: ${lone}`), first.transcript.slice(0, 300));
  assert.ok(!first.transcript.includes("\ufdd0\ufdd0"));
  assert.equal(first.messages[0], history[0], "the request's messages are the caller's objects");
  compactor.free();
});
