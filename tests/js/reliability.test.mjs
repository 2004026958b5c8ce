// Reliability (issue 9): no input breaks the module; every failure is a CompactionError with a
// code; a trap replaces the instance and the next call works; hooks never crash the process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { Compactor, Session, CompactionError, countTokens, validateMessages, estimateTokens, trimMessages, repairMessages } from "context-compaction";
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

test("values that change or throw when read again are read once: no raw exception, no crash", async () => {
  const flaky = (error) => {
    let reads = 0;
    return {
      role: "user",
      get content() {
        reads += 1;
        if (reads >= 2) throw error;
        return "hello there";
      },
    };
  };
  const history = aiSdkHistory(4);
  // Every entry point reads each message once (a Compactor that has not seen the format yet reads
  // the array for detection first, so its second read is caught there as INVALID_INPUT).
  const known = new Compactor({ contextWindow: 2_000, keepRecentTokens: 200, summarize: "extractive", format: "ai-sdk" });
  for (const call of ["check", "plan", "prune", "estimate"]) {
    assert.doesNotThrow(() => known[call]([...history, flaky(new TypeError("boom"))]), call);
  }
  const result = await known.maybeCompact([...history, flaky(new TypeError("boom"))]);
  assert.ok(Array.isArray(result));
  await known.compact([...history, flaky(new RangeError("boom"))]);
  const session = new Session({ contextWindow: 2_000, summarize: "extractive" });
  session.append([flaky(new TypeError("boom"))]);
  assert.ok(session.check().tokens > 0);
  // trimMessages walks the array once for tool ids before it converts what it keeps, so the
  // second read is the conversion's: a typed error, never a raw one.
  assert.throws(() => trimMessages([flaky(new TypeError("boom"))], { maxTokens: 100 }), isCode("INVALID_INPUT"));
  // A Proxy whose every read after the first throws.
  let n = 0;
  const proxy = new Proxy({ role: "user", content: "hi" }, {
    get(target, key, receiver) {
      if (key === "content" && ++n > 1) throw new TypeError("proxy boom");
      return Reflect.get(target, key, receiver);
    },
  });
  assert.deepEqual(validateMessages([proxy]), []);
  // A Map is read as an object of its entries (here, an unknown field that survives).
  const withMap = { role: "user", content: "hi", meta: new Map([["a", 1]]) };
  assert.equal(new Compactor({ contextWindow: 10_000, summarize: "extractive" }).estimate([withMap]).perMessage.length, 1);
  assert.deepEqual(repairMessages([withMap]).messages[0].meta, { a: 1 });
});

test("arrays cross as JSON text, and what JSON cannot say takes the value-by-value path", () => {
  // Enough messages that the whole array goes through JSON text (format detection, repair).
  const many = (last) => [...Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i}` })), last];
  const total = (messages) => new Compactor({ contextWindow: 10_000, summarize: "extractive", selfCalibration: false }).estimate(messages).total;
  // A lone surrogate in text (JSON escapes it, serde_json refuses it): kept, as a mark the core
  // holds (src/core/surrogates.rs), estimated within a token of U+FFFD.
  const lone = total(many({ role: "user", content: "a\ud800b" })) - total(many({ role: "user", content: "a\ufffdb" }));
  assert.ok(lone >= 0 && lone <= 1, `${lone}`);
  assert.deepEqual(validateMessages(many({ role: "user", content: "a\ud800b" })), []);
  // A function value is still not plain data.
  assert.throws(() => validateMessages(many({ role: "user", content: "hi", extra: () => 1 })), isCode("INVALID_INPUT", "messages"));
  // An undefined field is absent, as in JSON; other unknown fields survive.
  const repaired = repairMessages(many({ role: "user", content: "hi", extra: undefined, keep: { a: [1, "b", null] } })).messages;
  assert.deepEqual(repaired.at(-1), { role: "user", content: "hi", keep: { a: [1, "b", null] } });
  // One message alone (read value by value) says the same.
  assert.deepEqual(repairMessages([{ role: "user", content: "hi", extra: undefined }]).messages, [{ role: "user", content: "hi" }]);
});

test("a trap resets the instance: INTERNAL, then DISPOSED for old objects but Sessions, and new calls work", () => {
  const old = new Compactor({ contextWindow: 10_000, summarize: "extractive" });
  const oldSession = new Session({ contextWindow: 10_000 });
  // A getter that throws the second time it is read never reaches the conversion inside wasm:
  // the shape check reads each field once and the conversion reads its copy.
  let reads = 0;
  const message = {
    role: "user",
    get content() {
      reads += 1;
      if (reads >= 2) throw new WebAssembly.RuntimeError("second read");
      return "hi";
    },
  };
  assert.deepEqual(validateMessages([message]), []);
  assert.equal(reads, 1);
  // A real trap (the module's test hook runs wasm's `unreachable`, as an out-of-memory or a stack
  // overflow would): INTERNAL with the RuntimeError as cause, and the instance is replaced.
  const trap = createRequire(import.meta.url)("context-compaction")[Symbol.for("context-compaction.trap")];
  assert.throws(() => trap(), (e) => isCode("INTERNAL")(e) && e.cause instanceof WebAssembly.RuntimeError);
  // Every new call works, exact counting included (the table is read again).
  assert.equal(countTokens("hello world", "o200k_base"), 2);
  const fresh = new Compactor({ contextWindow: 10_000, summarize: "extractive" });
  assert.equal(fresh.check(aiSdkHistory(2)).shouldCompact, false);
  // Objects made before the reset fail clearly, except live Sessions, re-created from their logs
  // (tests/js/reset-sessions.test.mjs).
  assert.throws(() => old.check([]), isCode("DISPOSED"));
  assert.equal(oldSession.check().tokens, 0);
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

test("non-finite numbers and misspelled keys in options and call options are INVALID_OPTIONS", async () => {
  for (const [options, path] of [
    [{ reserveTokens: NaN }, "reserveTokens"],
    [{ keepRecentTokens: Infinity }, "keepRecentTokens"],
    [{ summaryTokens: -Infinity }, "summaryTokens"],
    [{ timeoutMs: NaN }, "timeoutMs"],
    [{ retries: NaN }, "retries"],
    [{ trigger: { fraction: NaN } }, "trigger.fraction"],
    [{ reserveTokens: 2 ** 60 }, "reserveTokens"],
  ]) {
    assert.throws(() => new Compactor({ contextWindow: 32_000, summarize: "extractive", ...options }), isCode("INVALID_OPTIONS", path), JSON.stringify(Object.keys(options)));
  }
  const c = new Compactor({ contextWindow: 32_000, summarize: "extractive" });
  const history = aiSdkHistory(3);
  assert.throws(() => c.check(history, { usag: { input: 1, output: 1 } }), isCode("INVALID_OPTIONS", "usag"));
  assert.throws(() => c.plan(history, { usage: { input: 1, output: 1 }, extra: 1 }), isCode("INVALID_OPTIONS", "extra"));
  await assert.rejects(c.compact(history, { forse: true }), isCode("INVALID_OPTIONS", "forse"));
  await assert.rejects(c.maybeCompact(history, { instruction: "x" }), isCode("INVALID_OPTIONS", "instruction"));
  const s = new Session({ contextWindow: 32_000, summarize: "extractive" });
  await assert.rejects(s.compact({ forse: true }), isCode("INVALID_OPTIONS", "forse"));
  assert.throws(() => s.render({ cache: false }), isCode("INVALID_OPTIONS", "cache"));
});

test("BigInt values, own __proto__ keys and ill-formed ids are INVALID_INPUT with the path", () => {
  const c = new Compactor({ contextWindow: 32_000, summarize: "extractive" });
  const big = [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "f", input: { n: 2n ** 60n } }] }];
  assert.throws(() => c.check(big), isCode("INVALID_INPUT", "messages[0].content[0].input.n"));
  const proto = JSON.parse('[{"role":"user","content":"x","meta":{"__proto__":{"a":1}}}]');
  assert.throws(() => validateMessages(proto), isCode("INVALID_INPUT", "messages[0].meta.__proto__"));
  const ids = [
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c\ud800", toolName: "f", input: {} }, { type: "tool-call", toolCallId: "c\udfff", toolName: "f", input: {} }] },
  ];
  assert.throws(() => validateMessages(ids), isCode("INVALID_INPUT", "messages[0].content[0].toolCallId"));
});

test("a tool call in a user message, or a non-text block in a system message, is INVALID_INPUT", () => {
  assert.throws(
    () => validateMessages([{ role: "user", content: [{ type: "tool-call", toolCallId: "c", toolName: "f", input: {} }] }], "ai-sdk"),
    isCode("INVALID_INPUT", "messages[0].content[0]"),
  );
  assert.throws(
    () => validateMessages([{ role: "system", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }, { role: "user", content: "hi" }], "anthropic"),
    isCode("INVALID_INPUT", "messages[0].content[0]"),
  );
});

test("an orphaned tool result in the input is never passed on alone (compact and trimMessages)", async () => {
  const history = aiSdkHistory(10);
  const orphan = { role: "tool", content: [{ type: "tool-result", toolCallId: "nowhere", toolName: "read", output: { type: "text", value: "lost" } }] };
  history.splice(history.length - 2, 0, orphan);
  assert.ok(validateMessages(history).some((v) => v.kind === "orphan-result"));
  const result = await new Compactor({ contextWindow: 32_000, keepRecentTokens: 3_000, summarize: (r) => `Summary ${r.round}.` }).compact(history, { force: true });
  assert.ok(!result.messages.includes(orphan), "not in the output");
  assert.ok(result.removed.includes(orphan), "reported as removed");
  assert.deepEqual(validateMessages(result.messages), []);
  const trimmed = trimMessages(history, { maxTokens: 5_000 });
  assert.ok(!trimmed.includes(orphan));
  assert.deepEqual(validateMessages(trimmed), []);
});

test("100 compactions in a row with a summarizer whose answers grow: bounded, never NO_PROGRESS", async () => {
  const options = { contextWindow: 16_000, keepRecentTokens: 2_000, retries: 0 };
  const c = new Compactor({ ...options, summarize: (r) => `${r.previousSummary ?? ""}\nRound ${r.round}: ${"more detail ".repeat(60)}` });
  const s = new Session({ ...options, summarize: (r) => `${r.previousSummary ?? ""}\nRound ${r.round}: ${"more detail ".repeat(60)}` });
  const cap = c.plan(aiSdkHistory(2)).tokensAfter; // any plan: the limit comes from the same options
  void cap;
  let messages = aiSdkHistory(4);
  let appended = 0;
  for (let round = 1; round <= 100; round++) {
    const more = aiSdkHistory(3).slice(1).map((m) => structuredClone(m));
    messages = [...messages, ...more];
    s.append(more);
    appended += more.length;
    const result = await c.compact(messages, { force: true });
    assert.equal(result.compacted, true, `round ${round}: ${result.warnings.join("; ")}`);
    assert.ok(result.tokensAfter < 16_000 - 4_000, `round ${round}: ${result.tokensAfter} tokens`);
    messages = result.messages;
    await s.compact({ force: true });
  }
  const summary = textOf(messages.find((m) => /compacted into the following summary/.test(textOf(m))));
  assert.ok(summary.length < 16_000 * 4, `the summary stays bounded (${summary.length} characters)`);
  // The session's log lost nothing: every appended message is still an entry.
  const logged = s.toJSONL().split("\n").filter((l) => l.includes('"type":"message"')).length;
  assert.equal(logged, appended);
});

function textOf(m) {
  if (!m) return "";
  if (typeof m.content === "string") return m.content;
  return Array.isArray(m.content) ? m.content.map((p) => p.text ?? "").join("\n") : "";
}

test("at small windows the compacted context stays under its own threshold", async () => {
  for (const contextWindow of [2_000, 3_000, 5_000, 8_000]) {
    for (const turns of [4, 12]) {
      // The summarizer uses its whole budget, and the digest has much to add.
      const summarize = (r) => "word ".repeat(Math.max(1, r.maxTokens - 5));
      const c = new Compactor({ contextWindow, summarize, retries: 0 });
      const history = aiSdkHistory(turns).map((m) => (m.role === "tool" ? { ...m, content: [{ ...m.content[0], output: { type: "text", value: "x".repeat(300) } }] } : m));
      let result;
      try {
        result = await c.compact(history, { force: true });
      } catch (e) {
        assert.ok(e instanceof CompactionError && ["CANNOT_COMPACT", "NO_PROGRESS"].includes(e.code), String(e));
        continue;
      }
      const after = c.check(result.messages);
      assert.equal(after.shouldCompact, false, `window ${contextWindow}, ${turns} turns: ${after.tokens} tokens against ${after.threshold}`);
    }
  }
});
