// What a Compactor with a store saves of its last automatic compaction (docs/stores.md, the
// stateless path): besides the replaced messages' count and digest and the head, what a Session's
// compaction entry says of it — `keepLastMessages` (the caller's messages kept after the replaced
// ones), `timestamp` (ISO 8601) and the summary's digest (`summaryDigest`). A fresh Compactor
// seeded from that line continues from it and floors its next cut past the kept messages, as the
// Compactor that wrote it would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, memoryStore } from "../../js/node.mjs";
import { aiSdkHistory } from "./history.mjs";

const summarize = (r) => `Summary (round ${r.round}) of ${r.messages.length} messages: the user fixed modules.`;
const options = { preset: "pi", format: "ai-sdk", contextWindow: 40_000, reserveTokens: 4_000, summarize };

/** The memo lines saved for `id`, parsed. */
async function memoLines(store, id) {
  const read = await store.load(id);
  return (read?.lines ?? []).map((l) => JSON.parse(l)).filter((l) => l.type === "memo");
}

test("the stored memo line carries keepLastMessages, timestamp and summaryDigest", async () => {
  const store = memoryStore();
  const history = aiSdkHistory(40);
  const before = Date.now();
  const stored = new Compactor({ ...options, store, conversationId: "c1" });
  const out = await stored.maybeCompact(history);
  const after = Date.now();
  assert.notEqual(out, history, "the history compacts");
  const [memo] = await memoLines(store, "c1");
  assert.ok(memo, "a memo line is saved");

  // keepLastMessages: the caller's messages from the first kept one to the end.
  assert.equal(memo.keepLastMessages, history.length - memo.replaced);
  assert.ok(memo.keepLastMessages > 0);
  assert.deepEqual(out.slice(-memo.keepLastMessages), history.slice(memo.replaced), "the kept messages end the result");
  assert.equal(out.length, memo.head.length + memo.keepLastMessages);

  // timestamp: when it was made, ISO 8601 with milliseconds.
  assert.match(memo.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const at = Date.parse(memo.timestamp);
  assert.ok(at >= before && at <= after, `${memo.timestamp} is within the call`);

  // summaryDigest: the digest of the compaction's result (what compact() reports of the same plan).
  const manual = new Compactor(options);
  const result = await manual.compact(history);
  assert.ok(result.digest && typeof result.digest === "object");
  assert.deepEqual(memo.summaryDigest, result.digest);
  stored.free();
  manual.free();
});

test("a Compactor seeded from the line floors its next cut as the one that wrote it", async () => {
  const store = memoryStore();
  const history = aiSdkHistory(40);
  const writer = new Compactor({ ...options, store, conversationId: "c2" });
  await writer.maybeCompact(history);
  const [memo] = await memoLines(store, "c2");
  // The application stores its whole history and grows it until the continued context compacts
  // again, in a fresh Compactor each time (a serverless route).
  let grown = history;
  let fresh;
  let out;
  let latest = memo;
  for (let i = 40; i < 200 && latest.replaced === memo.replaced; i++) {
    grown = [...grown, ...aiSdkHistory(i + 1).slice(-4)];
    fresh?.free();
    fresh = new Compactor({ ...options, store, conversationId: "c2" });
    out = await fresh.maybeCompact(grown);
    // The store's live lines are the latest record.
    [latest] = await memoLines(store, "c2");
  }
  assert.notEqual(latest.replaced, memo.replaced, "a second compaction happened");
  // None of the messages the first compaction kept is kept again: they are summarized.
  assert.ok(latest.replaced >= memo.replaced + memo.keepLastMessages, "the second cut is past the first's kept messages");
  const keptNow = out.slice(-latest.keepLastMessages);
  for (const m of history.slice(memo.replaced)) assert.ok(!keptNow.includes(m), "a message the first compaction kept is kept again");
  assert.equal(latest.keepLastMessages, grown.length - latest.replaced);
  fresh.free();
  writer.free();
});
