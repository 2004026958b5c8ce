// The Compactor's identity cache: each message object is converted once, and every answer equals
// a fresh Compactor's over a growing real session; a new object is read anew, an object mutated in
// place is not (until forget()), and any format or estimator stays exact.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, importSession, trimMessages } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const session = importSession(fixtureText("pi/large-session.jsonl"), "pi");
// Self-calibration off: a Compactor that learned from usage answers differently, by design.
const options = { contextWindow: 60_000, reserveTokens: 4_000, keepRecentTokens: 8_000, format: "pi", summarize: "extractive", selfCalibration: false };

for (const tokenizer of ["heuristic", "o200k_base"]) {
  test(`a cached Compactor answers as a fresh one over a growing real session (${tokenizer})`, () => {
    const cached = new Compactor({ ...options, tokenizer });
    // Pruning whose decisions change as the history grows (OpenCode's, a small protected tail).
    const pruneOptions = { ...options, tokenizer, prune: { style: "opencode", protectTokens: 4_000, minimum: 500 } };
    const cachedPrune = new Compactor(pruneOptions);
    let prunedSome = 0;
    const history = session.messages;
    assert.ok(history.length > 500);
    let grown = [];
    for (let i = 0; i < history.length; i += 37) {
      grown = [...grown, ...history.slice(grown.length, i + 1)];
      const fresh = new Compactor({ ...options, tokenizer });
      assert.deepEqual(cached.check(grown), fresh.check(grown), `check at ${grown.length}`);
      const usage = { input: 1000 + i, output: 50 };
      assert.deepEqual(cached.check(grown, { usage }), fresh.check(grown, { usage }), `check with usage at ${grown.length}`);
      // plan reuses the previous call's copies of the messages it shares from the start.
      assert.deepEqual(cached.plan(grown), fresh.plan(grown), `plan at ${grown.length}`);
      for (const trim of [{ maxTokens: 6_000 }, { maxTokens: 20_000, startOn: "user", allowPartial: true }]) {
        const kept = cached.trim(grown, trim);
        assert.deepEqual(kept, trimMessages(grown, { ...trim, tokenizer, format: "pi" }), `trim at ${grown.length}`);
        assert.ok(kept.every((m) => grown.includes(m) || trim.allowPartial), "the caller's objects");
      }
      const pruned = cachedPrune.prune(grown);
      assert.deepEqual(pruned, new Compactor(pruneOptions).prune(grown), `prune at ${grown.length}`);
      prunedSome += pruned.filter((m, j) => m !== grown[j]).length;
      const again = cachedPrune.prune(grown);
      assert.ok(again.every((m, j) => m === pruned[j]), "pruned the same way: the same objects again");
      if (i % 111 === 0) {
        assert.deepEqual(cached.estimate(grown), fresh.estimate(grown), `estimate at ${grown.length}`);
        // A history that shares only a head with the previous call, then the full one again.
        const edited = [...grown.slice(0, grown.length >> 1), ...grown.slice((grown.length >> 1) + 1)];
        assert.deepEqual(cached.plan(edited), fresh.plan(edited), `plan of an edited history at ${grown.length}`);
        assert.deepEqual(cached.plan(grown), fresh.plan(grown), `plan after the edited one at ${grown.length}`);
      }
    }
    assert.ok(prunedSome > 100, `pruning changed messages (${prunedSome})`);
    // Passing an unrelated array and then the history again stays exact (entries are re-read).
    const other = history.slice(0, 3).map((m) => structuredClone(m));
    assert.deepEqual(cached.check(other), new Compactor({ ...options, tokenizer }).check(other));
    assert.deepEqual(cached.check(grown), new Compactor({ ...options, tokenizer }).check(grown));
  });
}

test("a replaced object is read anew; one mutated in place only after forget()", () => {
  const c = new Compactor({ contextWindow: 10_000, format: "ai-sdk", summarize: "extractive" });
  const first = { role: "user", content: "short" };
  const messages = [first, { role: "assistant", content: "ok" }];
  const before = c.check(messages).tokens;
  const longer = { role: "user", content: "a much longer request ".repeat(50) };
  const replaced = c.check([longer, messages[1]]).tokens;
  assert.ok(replaced > before + 100, "a new object is converted");
  first.content = "a much longer request ".repeat(50);
  assert.equal(c.check(messages).tokens, before, "mutation in place is not seen: objects are read once");
  c.forget();
  assert.equal(c.check(messages).tokens, replaced, "after forget() the object is read again");
});

test("a small call in between (a sub-agent's history) does not evict the main history", () => {
  const c = new Compactor({ ...options, tokenizer: "heuristic" });
  const main = session.messages.map((m) => ({ ...m }));
  const before = c.check(main).tokens;
  // Changed in place: not noticed while the object is cached, noticed once it was evicted.
  main[1].content = [{ type: "text", text: "a much longer text than before ".repeat(400) }];
  for (let i = 0; i < 3; i++) c.check(main.slice(0, 3).map((m) => ({ ...m })));
  assert.equal(c.check(main).tokens, before, "the main history stayed cached");
  // Many different arrays in a row do evict: the cache stays bounded.
  for (let i = 0; i < 12; i++) c.check(main.map((m) => ({ ...m })));
  assert.notEqual(c.check(main).tokens, before, "evicted after many other histories, then read anew");
});

test("bad input is still reported with its path, whatever was cached", () => {
  const c = new Compactor({ contextWindow: 10_000, format: "ai-sdk", summarize: "extractive" });
  const ok = [{ role: "user", content: "hi" }];
  c.check(ok);
  assert.throws(() => c.check([...ok, { content: "no role" }]), (e) => e.code === "INVALID_INPUT" && e.path.startsWith("messages[1]"));
  assert.throws(() => c.check("nope"), (e) => e.code === "INVALID_INPUT" && e.path === "messages");
  assert.equal(c.check(ok).tokens > 0, true);
});

test("many unseen messages cross together, with the same answers and errors as one by one", () => {
  const many = Array.from({ length: 80 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: `message ${i} `.repeat(1 + (i % 7)) }] }));
  const fresh = () => new Compactor({ contextWindow: 100_000, format: "ai-sdk", summarize: "extractive" });
  // the same estimate whether the messages came in one call (together) or one at a time
  const together = fresh();
  const oneByOne = fresh();
  for (let n = 1; n <= many.length; n++) oneByOne.check(many.slice(0, n));
  assert.deepEqual(together.estimate(many), oneByOne.estimate(many));
  // an error in the batch names the message's own path, after some were cached or not
  const bad = [...many];
  bad[45] = { role: "user", content: [{ type: "text", text: "big", n: 10n }] };
  const seenSome = fresh();
  seenSome.check(many.slice(0, 20)); // the 60 unseen ones cross together: 45 is the batch's 25th
  for (const c of [fresh(), seenSome]) {
    assert.throws(() => c.check(bad), (e) => e.code === "INVALID_INPUT" && e.path.startsWith("messages[45]"), "a BigInt");
  }
  seenSome.free();
  const noRole = [...many];
  noRole[60] = { content: "no role" };
  assert.throws(() => fresh().check(noRole), (e) => e.code === "INVALID_INPUT" && e.path.startsWith("messages[60]"), "no role");
  // binary data in the batch: each message is converted alone, and a trim hands back the caller's bytes
  const image = new Uint8Array([137, 80, 78, 71]);
  const withImage = [...many];
  withImage[70] = { role: "user", content: [{ type: "text", text: "look" }, { type: "image", image, mediaType: "image/png" }] };
  const c = fresh();
  const kept = c.trim(withImage, { maxTokens: 100_000, allowPartial: true });
  assert.equal(kept[70], withImage[70], "the caller's object");
  assert.equal(c.estimate(withImage).perMessage.length, 80);
  together.free();
  oneByOne.free();
  c.free();
});

test("Compactor.trim takes the compactor's tokenizer and format, and trimMessages' options", () => {
  const c = new Compactor({ contextWindow: 10_000, format: "ai-sdk", summarize: "extractive" });
  const messages = [
    { role: "user", content: "list the files" },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "ls", input: {} }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "ls", output: { type: "text", value: "a.ts\nb.ts\n".repeat(50) } }] },
    { role: "assistant", content: "Two files." },
  ];
  const kept = c.trim(messages, { maxTokens: 30 });
  assert.deepEqual(kept, [messages[3]], "the tool pair does not fit whole: it is dropped whole");
  assert.deepEqual(c.trim(messages, { maxTokens: 10_000 }), messages);
  for (const key of ["tokenizer", "format"]) {
    assert.throws(() => c.trim(messages, { maxTokens: 100, [key]: key === "format" ? "ai-sdk" : "heuristic" }), (e) => e.code === "INVALID_OPTIONS" && e.path === key);
  }
  assert.throws(() => c.trim(messages, {}), (e) => e.code === "INVALID_OPTIONS" && e.path === "maxTokens");
  assert.throws(() => c.trim(messages, { maxTokens: 10, tokenCounter: () => 1 }), (e) => e.code === "INVALID_OPTIONS" && e.path === "tokenCounter");
  assert.throws(() => c.trim("nope", { maxTokens: 10 }), (e) => e.code === "INVALID_INPUT");
});
