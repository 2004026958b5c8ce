// Reliability (issue 9): no input breaks the module; every failure is a CompactionError with a
// code; a trap replaces the instance and the next call works; hooks never crash the process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, Session, CompactionError, countTokens, validateMessages, estimateTokens, trimMessages } from "context-compaction";
import { aiSdkHistory } from "./history.mjs";

const isCode = (code, path) => (e) => {
  assert.ok(e instanceof CompactionError, `not a CompactionError: ${e?.stack ?? e}`);
  assert.equal(e.code, code, e.message);
  if (path !== undefined) assert.equal(e.path, path);
  return true;
};

function nested(depth) {
  const root = {};
  let v = root;
  for (let i = 0; i < depth; i++) v = v.a = {};
  return root;
}

test("deep nesting is INVALID_INPUT with the path, and the module keeps working", async () => {
  const deep = nested(3_000);
  const message = { role: "user", content: [{ type: "text", text: "x", extra: deep }] };
  assert.throws(() => validateMessages([message]), isCode("INVALID_INPUT"));
  try {
    validateMessages([message]);
  } catch (e) {
    assert.match(e.path, /^messages\[0\]\.content\[0\]\.extra(\.a)+$/);
  }
  const compactor = new Compactor({ contextWindow: 10_000, summarize: "extractive" });
  assert.throws(() => compactor.check([message]), isCode("INVALID_INPUT"));
  await assert.rejects(compactor.compact([message]), isCode("INVALID_INPUT"));
  assert.throws(() => new Compactor({ contextWindow: 10_000, summarize: "extractive", transcript: deep }), isCode("INVALID_OPTIONS"));
  assert.throws(() => new Session({ contextWindow: 10_000 }).append(message), isCode("INVALID_INPUT"));
  // A cycle is refused the same way, never a stack overflow.
  const cyclic = { role: "user", content: "x" };
  cyclic.self = cyclic;
  assert.throws(() => validateMessages([cyclic]), isCode("INVALID_INPUT"));
  // Everything still works.
  assert.equal(countTokens("hello world", "o200k_base"), 2);
  assert.equal(compactor.check(aiSdkHistory(2)).shouldCompact, false);
});

test("a message array whose reading throws is INVALID_INPUT, not a raw exception", () => {
  const history = aiSdkHistory(2);
  const throwing = new Proxy(history, {
    get(target, key, receiver) {
      if (key === "1") throw new TypeError("boom");
      return Reflect.get(target, key, receiver);
    },
  });
  const compactor = new Compactor({ contextWindow: 10_000, summarize: "extractive" });
  assert.throws(() => compactor.check(throwing), isCode("INVALID_INPUT", "messages"));
  assert.equal(compactor.check(history).shouldCompact, false);
});

test("a trap resets the instance: INTERNAL, then DISPOSED for old objects, and new calls work", () => {
  const old = new Compactor({ contextWindow: 10_000, summarize: "extractive" });
  const oldSession = new Session({ contextWindow: 10_000 });
  // A getter that throws a RuntimeError the second time it is read: the shape check reads it
  // first (fine), the conversion inside wasm reads it again and the error unwinds through wasm
  // frames, which is what a trap does.
  let reads = 0;
  const message = {
    role: "user",
    get content() {
      reads += 1;
      if (reads >= 2) throw new WebAssembly.RuntimeError("forced trap");
      return "hi";
    },
  };
  assert.throws(() => validateMessages([message]), (e) => isCode("INTERNAL")(e) && e.cause instanceof WebAssembly.RuntimeError);
  // Every new call works, exact counting included (the table is read again).
  assert.equal(countTokens("hello world", "o200k_base"), 2);
  const fresh = new Compactor({ contextWindow: 10_000, summarize: "extractive" });
  assert.equal(fresh.check(aiSdkHistory(2)).shouldCompact, false);
  // Objects made before the reset fail clearly.
  assert.throws(() => old.check([]), isCode("DISPOSED"));
  assert.throws(() => oldSession.check(), isCode("DISPOSED"));
});

test("a method after free() is a CompactionError (DISPOSED)", () => {
  const c = new Compactor({ contextWindow: 10_000, summarize: "extractive" });
  c.free();
  assert.throws(() => c.check([]), isCode("DISPOSED"));
  const s = new Session({ contextWindow: 10_000 });
  s[Symbol.dispose]();
  assert.throws(() => s.render(), isCode("DISPOSED"));
});

test("observing hooks that throw or reject become warnings; onBeforeCompaction failing stops cleanly", async () => {
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on("unhandledRejection", onUnhandled);
  try {
    const base = { contextWindow: 32_000, keepRecentTokens: 3_000, summarize: (r) => `Summary ${r.round}.` };
    const result = await new Compactor({
      ...base,
      onProgress: async () => {
        throw new Error("progress hook down");
      },
      onAfterCompaction: () => {
        throw new Error("after hook down");
      },
    }).compact(aiSdkHistory());
    assert.equal(result.compacted, true);
    assert.ok(result.warnings.some((w) => /onProgress failed: progress hook down/.test(w)), result.warnings.join("; "));
    assert.ok(result.warnings.some((w) => /onAfterCompaction failed: after hook down/.test(w)));
    const history = aiSdkHistory();
    const snapshot = structuredClone(history);
    await assert.rejects(
      new Compactor({ ...base, onBeforeCompaction: async () => Promise.reject(new Error("no")) }).compact(history),
      (e) => isCode("HOOK_FAILED")(e) && e.cause instanceof Error,
    );
    await assert.rejects(new Compactor({ ...base, onBeforeCompaction: () => { throw 7; } }).compact(history), isCode("HOOK_FAILED"));
    assert.deepEqual(history, snapshot);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(unhandled, [], "no unhandled rejection");
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

test("summaries from a hook or a summarizer must hold text", async () => {
  const history = aiSdkHistory();
  const base = { contextWindow: 32_000, keepRecentTokens: 3_000, retries: 0, summarize: (r) => `Summary ${r.round}.` };
  await assert.rejects(new Compactor({ ...base, onBeforeCompaction: () => ({ summary: "" }) }).compact(history), isCode("SUMMARY_EMPTY"));
  await assert.rejects(new Compactor({ ...base, onBeforeCompaction: () => ({ summary: 42 }) }).compact(history), isCode("HOOK_FAILED"));
  await assert.rejects(new Compactor({ ...base, onBeforeCompaction: () => ({ summary: "\u200b\u200b" }) }).compact(history), isCode("SUMMARY_EMPTY"));
  await assert.rejects(new Compactor({ ...base, summarize: () => "\u200b \ufeff\n" }).compact(history), isCode("SUMMARY_EMPTY"));
});

test("bad usage values are INVALID_OPTIONS with the path", () => {
  const c = new Compactor({ contextWindow: 32_000, summarize: "extractive" });
  const history = aiSdkHistory(3);
  for (const [usage, path] of [
    [{ input: -1000, output: 5 }, "usage.input"],
    [{ input: 1e300, output: 5 }, "usage.input"],
    [{ input: "1000", output: 5 }, "usage.input"],
    [{ prompt_tokens: 1.5, completion_tokens: 2 }, "usage.prompt_tokens"],
    [{ nothing: 1 }, "usage"],
    [42, "usage"],
  ]) {
    assert.throws(() => c.check(history, { usage }), isCode("INVALID_OPTIONS", path), JSON.stringify(usage));
  }
  assert.equal(typeof c.check(history, { usage: { prompt_tokens: 1000, completion_tokens: 20 } }).tokens, "number");
  const s = new Session({ contextWindow: 32_000 });
  assert.throws(() => s.recordUsage({ input: -1, output: 1 }), isCode("INVALID_OPTIONS", "usage.input"));
});

test("a long run without spaces is counted quickly and exactly", () => {
  const text = "漢字".repeat(50_000);
  assert.equal(countTokens(text, "o200k_base"), 100_000);
  assert.ok(estimateTokens(text) > 0);
  assert.ok(Array.isArray(trimMessages([{ role: "user", content: text }], { maxTokens: 10, tokenizer: "o200k_base" })));
});

test("compact() reads its input when called, not a microtask later", async () => {
  const history = aiSdkHistory();
  const c = new Compactor({ contextWindow: 32_000, keepRecentTokens: 3_000, summarize: (r) => `Summary of ${r.messages.length}.` });
  const expected = await new Compactor({ contextWindow: 32_000, keepRecentTokens: 3_000, summarize: (r) => `Summary of ${r.messages.length}.` }).compact([...history]);
  const pending = c.compact(history);
  const intruder = { role: "user", content: "added after the call" };
  history.unshift(intruder);
  const result = await pending;
  assert.equal(result.tokensBefore, expected.tokensBefore);
  assert.equal(result.summary, expected.summary);
  assert.ok(!result.removed.includes(intruder) && !result.messages.includes(intruder));
});
