// A Compactor made without `format` whose first calls hold only plain text (`{ role, content:
// string }`, which reads the same in the AI SDK, OpenAI and Anthropic formats) does not settle on
// a format: it reads them as `ai-sdk` provisionally, and the first call whose messages show their
// format decides it; every message read provisionally is read again under that format. So a
// Compactor told nothing reads, counts and compacts exactly as one told the format.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor } from "context-compaction";
import { anthropicHistory, openAiHistory } from "./history.mjs";

const plain = [
  { role: "user", content: "Fix the failing test in src/mod0.rs, please. ".repeat(4) },
  { role: "assistant", content: "Looking at it now." },
];

const summaries = () => {
  const requests = [];
  const summarize = (r) => {
    requests.push(r.messages);
    return `Summary of ${r.messages.length} messages.`;
  };
  return { requests, summarize };
};

const options = { contextWindow: 40_000, reserveTokens: 4_000, keepRecentTokens: 4_000 };

for (const [format, history] of [
  ["anthropic", anthropicHistory(30)],
  ["openai", openAiHistory(30).slice(1)],
]) {
  test(`plain text first, then ${format} tool blocks: read as a Compactor told "${format}" reads them`, async () => {
    const a = summaries();
    const b = summaries();
    const undecided = new Compactor({ ...options, summarize: a.summarize });
    const told = new Compactor({ ...options, summarize: b.summarize, format });
    // The first calls hold only plain text.
    assert.deepEqual(undecided.check(plain), told.check(plain));
    assert.deepEqual(undecided.estimate(plain), told.estimate(plain));
    // Then the tool blocks arrive, after the same plain-text messages (the same objects).
    const all = [...plain, ...history];
    const e = undecided.estimate(all);
    assert.deepEqual(e, told.estimate(all));
    assert.ok(e.byKind.toolCalls > 0 && e.byKind.toolResults > 0, `tool calls and results are counted as such: ${JSON.stringify(e.byKind)}`);
    assert.deepEqual(undecided.check(all), told.check(all));
    const [x, y] = [await undecided.compact(all), await told.compact(all)];
    assert.deepEqual(x.messages, y.messages, "the same compacted messages, in the caller's format");
    assert.deepEqual(a.requests, b.requests, "the summarizer is asked the same");
    // The kept tail holds the caller's tool blocks as they were, not raw JSON parts.
    const kept = JSON.stringify(x.messages.slice(-4));
    assert.ok(kept.includes(format === "anthropic" ? '"tool_use"' : '"tool_calls"'), kept);
    undecided.free();
    told.free();
  });
}

test("the format shown decides for good: plain text after it is read under it", async () => {
  const c = new Compactor({ ...options, summarize: () => "s" });
  const told = new Compactor({ ...options, summarize: () => "s", format: "anthropic" });
  const history = anthropicHistory(3);
  c.check(history);
  const later = [...history, ...plain];
  assert.deepEqual(c.estimate(later), told.estimate(later));
  c.free();
  told.free();
});

test("an array that shows two formats is still refused, naming both", () => {
  const c = new Compactor({ ...options, summarize: () => "s" });
  c.check(plain);
  const mixed = [...plain, ...anthropicHistory(1), ...openAiHistory(1).slice(1)];
  assert.throws(() => c.check(mixed), (e) => e.code === "INVALID_INPUT" && /ambiguous message format/.test(e.message));
  c.free();
});
