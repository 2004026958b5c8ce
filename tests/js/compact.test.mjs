// compact(): results, requests, and fault injection. Every failure leaves the input deep-equal to
// before and rejects with a CompactionError carrying a code (and the cause of a callback's error).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, CompactionError } from "context-compaction";
import { aiSdkHistory, openAiHistory, anthropicHistory } from "./history.mjs";

const base = { contextWindow: 32_000, keepRecentTokens: 3_000, retryDelayMs: 1 };

async function rejectsUntouched(options, code, check = () => {}) {
  const messages = aiSdkHistory();
  const snapshot = structuredClone(messages);
  const compactor = new Compactor({ ...base, ...options });
  await assert.rejects(compactor.compact(messages), (e) => {
    assert.ok(e instanceof CompactionError, `not a CompactionError: ${e}`);
    assert.ok(e instanceof Error);
    assert.equal(e.code, code, e.message);
    check(e);
    return true;
  });
  assert.deepEqual(messages, snapshot, "the input is untouched");
}

test("a compaction summarizes the old part and keeps the caller's own objects", async () => {
  const messages = aiSdkHistory();
  const requests = [];
  const compactor = new Compactor({ ...base, summarize: async (req) => (requests.push(req), `Summary of ${req.messages.length} messages.`) });
  const result = await compactor.compact(messages, { instructions: "focus on the API" });
  assert.equal(result.compacted, true);
  assert.ok(result.tokensAfter < result.tokensBefore);
  assert.equal(result.messages[0], messages[0], "system message first, the same object");
  assert.equal(result.messages[1].role, "user");
  assert.match(result.messages[1].content, /compacted into the following summary:\n\nSummary of \d+ messages\./);
  // The kept tail is the caller's objects, unknown fields included.
  const tail = result.messages.slice(2);
  for (const m of tail) assert.ok(messages.includes(m));
  assert.equal(result.removed.length + tail.length + 1, messages.length);
  for (const m of result.removed) assert.ok(messages.includes(m));
  // The request.
  const history = requests.find((r) => r.purpose === "history");
  assert.ok(history.signal instanceof AbortSignal);
  assert.equal(typeof history.system, "string");
  assert.ok(history.prompt.includes(history.transcript));
  assert.ok(history.prompt.includes("focus on the API"));
  assert.equal(history.instructions, "focus on the API");
  assert.equal(history.round, 1);
  assert.ok(history.maxTokens > 0);
  assert.ok(history.messages.every((m) => messages.includes(m)));
  assert.match(history.transcript, /src\/mod0\.rs/);
  // The digest lists the files read, and what the summary missed was appended.
  assert.ok(result.digest.filesRead.includes("src/mod0.rs"));
  assert.match(result.summary, /src\/mod0\.rs/);
});

test("a second compaction folds the first summary in", async () => {
  const seen = [];
  const compactor = new Compactor({ ...base, summarize: (req) => (seen.push(req), `round ${req.round} summary`) });
  const first = await compactor.compact(aiSdkHistory());
  const more = [...first.messages, ...aiSdkHistory(30).slice(1)];
  const second = await compactor.compact(more);
  assert.equal(second.compacted, true);
  assert.equal(second.round, 2);
  const history = seen.filter((r) => r.purpose === "history").at(-1);
  assert.equal(history.round, 2);
  assert.ok(history.previousSummary.includes("round 1 summary"));
  assert.equal(second.messages.filter((m) => typeof m.content === "string" && m.content.includes("summary:")).length, 1);
});

test("OpenAI and Anthropic histories get the summary in their own format", async () => {
  const summarize = () => "short";
  const openai = await new Compactor({ ...base, summarize }).compact(openAiHistory());
  assert.deepEqual(Object.keys(openai.messages[1]).sort(), ["content", "role"]);
  assert.ok(openai.messages.every((m) => m.role !== "tool" || openai.messages.some((a) => a.tool_calls?.some((c) => c.id === m.tool_call_id))));
  const anthropic = await new Compactor({ ...base, summarize, summaryRole: "user" }).compact(anthropicHistory());
  assert.equal(anthropic.messages[0].role, "user");
  assert.ok(Array.isArray(anthropic.messages[0].content) || typeof anthropic.messages[0].content === "string");
});

test("a synchronous throw is SUMMARIZER_FAILED with the error as cause", async () => {
  const boom = new Error("boom");
  await rejectsUntouched({ retries: 0, summarize: () => { throw boom; } }, "SUMMARIZER_FAILED", (e) => assert.equal(e.cause, boom));
});

for (const [name, value] of [["an Error", new Error("nope")], ["a string", "nope"], ["undefined", undefined], ["an object", { status: 500 }]]) {
  test(`a rejection with ${name} is SUMMARIZER_FAILED with that value as cause`, async () => {
    await rejectsUntouched({ retries: 1, summarize: () => Promise.reject(value) }, "SUMMARIZER_FAILED", (e) => assert.equal(e.cause, value));
  });
}

test("a non-string answer is SUMMARIZER_FAILED", async () => {
  await rejectsUntouched({ retries: 0, summarize: () => 42 }, "SUMMARIZER_FAILED");
  await rejectsUntouched({ retries: 0, summarize: async () => ({ text: "wrong key" }) }, "SUMMARIZER_FAILED");
});

test("an empty answer is SUMMARY_EMPTY; one not smaller than what it replaces is NO_PROGRESS", async () => {
  await rejectsUntouched({ retries: 0, summarize: () => "   " }, "SUMMARY_EMPTY");
  await rejectsUntouched({ retries: 0, summarize: (req) => req.transcript + req.transcript }, "NO_PROGRESS");
});

test("a hang times out, and every request's signal aborts", async () => {
  const signals = [];
  await rejectsUntouched({ retries: 0, timeoutMs: 30, summarize: (req) => (signals.push(req.signal), new Promise(() => {})) }, "TIMEOUT");
  assert.ok(signals.length >= 1);
  assert.ok(signals.every((s) => s.aborted), "parallel siblings are aborted too");
  assert.equal(signals[0].reason.code, "TIMEOUT");
});

test("the caller's signal aborts the compaction, before or during the call", async () => {
  const messages = aiSdkHistory();
  const snapshot = structuredClone(messages);
  const compactor = new Compactor({ ...base, summarize: () => new Promise(() => {}) });
  const controller = new AbortController();
  const pending = compactor.compact(messages, { signal: controller.signal });
  const reason = new Error("user pressed stop");
  setTimeout(() => controller.abort(reason), 10);
  await assert.rejects(pending, (e) => e instanceof CompactionError && e.code === "ABORTED" && e.cause === reason);
  await assert.rejects(compactor.compact(messages, { signal: AbortSignal.abort() }), (e) => e.code === "ABORTED");
  assert.deepEqual(messages, snapshot);
});

test("retries with backoff: two failures then success", async () => {
  let calls = 0;
  // The pauses the runner asks the host for (its timers go through globalThis.setTimeout): the
  // schedule is read from the requested delays, not from the clock, so machine load cannot move it.
  const requested = [];
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = (fn, ms, ...rest) => {
    requested.push(ms);
    return realSetTimeout(fn, ms, ...rest);
  };
  const timeoutMs = 60_000;
  const compactor = new Compactor({ ...base, retries: 2, retryDelayMs: 20, timeoutMs, summarize: () => {
    calls += 1;
    if (calls <= 2) throw new Error(`fail ${calls}`);
    return "third time lucky";
  } });
  try {
    const result = await compactor.compact(aiSdkHistory(30), {});
    assert.equal(result.compacted, true);
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  assert.equal(calls, 3);
  // Between the calls, the backoff: 20 ms, then twice that (the other timers are the calls'
  // timeouts).
  assert.deepEqual(requested.filter((ms) => ms !== timeoutMs), [20, 40]);
});

test("the circuit breaker stops automatic compaction after repeated failures; manual still works", async () => {
  let calls = 0;
  const compactor = new Compactor({ ...base, retries: 0, maxConsecutiveFailures: 2, onFailure: "reject", onError: () => {}, summarize: () => { calls += 1; throw new Error("down"); } });
  const messages = aiSdkHistory();
  await assert.rejects(compactor.maybeCompact(messages));
  await assert.rejects(compactor.maybeCompact(messages));
  const before = calls;
  assert.equal(await compactor.maybeCompact(messages), messages, "unchanged, no call");
  assert.equal(calls, before);
  await assert.rejects(compactor.compact(messages));
  assert.ok(calls > before, "manual compaction still calls the summarizer");
});

test("maybeCompact returns the same array below the trigger", async () => {
  const compactor = new Compactor({ contextWindow: 1_000_000, summarize: () => assert.fail("no call") });
  const messages = aiSdkHistory(3);
  assert.equal(await compactor.maybeCompact(messages), messages);
});

test("hooks: onBeforeCompaction cancels or supplies the summary; onAfterCompaction gets the numbers", async () => {
  const messages = aiSdkHistory();
  const cancelled = await new Compactor({ ...base, summarize: () => assert.fail("no call"), onBeforeCompaction: () => false }).compact(messages);
  assert.equal(cancelled.compacted, false);
  assert.deepEqual(cancelled.messages, messages);
  let after;
  const supplied = await new Compactor({
    ...base,
    summarize: () => assert.fail("no call"),
    onBeforeCompaction: async (event) => (assert.ok(event.tokensBefore > 0), { summary: "from the hook" }),
    onAfterCompaction: (event) => (after = event),
  }).compact(messages);
  assert.match(supplied.summary, /from the hook/);
  assert.equal(after.tokensBefore, supplied.tokensBefore);
  assert.equal(after.tokensAfter, supplied.tokensAfter);
  assert.equal(after.compactedTokens, after.tokensBefore - after.tokensAfter);
});

test("the callback may call back into the same Compactor, and overlapping compactions do not interfere", async () => {
  const compactor = new Compactor({ ...base, summarize: async (req) => {
    const estimate = compactor.estimate(req.messages);
    const plan = compactor.plan(req.messages);
    await new Promise((r) => setTimeout(r, 5));
    return `nested ${estimate.total} ${plan.tokensBefore}`;
  } });
  const a = aiSdkHistory(30);
  const b = aiSdkHistory(40);
  const [ra, rb] = await Promise.all([compactor.compact(a), compactor.compact(b)]);
  assert.equal(ra.compacted && rb.compacted, true);
  assert.ok(rb.removed.every((m) => b.includes(m)) && ra.removed.every((m) => a.includes(m)));
});

test("progress is reported for multi-piece work (chunks)", async () => {
  const progress = [];
  const purposes = [];
  const compactor = new Compactor({ ...base, chunkChars: 20_000, summarize: (req) => (purposes.push(req.purpose), "chunk summary"), onProgress: (p) => progress.push(p) });
  await compactor.compact(aiSdkHistory());
  assert.ok(purposes.filter((p) => p === "chunk").length >= 2, purposes.join());
  assert.ok(progress.length >= 2);
  const last = progress.at(-1);
  assert.equal(last.done, last.total);
});

test("pinned messages survive compaction", async () => {
  const messages = aiSdkHistory(30, { pinnedFirst: true });
  const result = await new Compactor({ ...base, summarize: () => "s" }).compact(messages);
  assert.ok(result.messages.includes(messages[1]));
});

test("options are validated up front with the key named", () => {
  const invalid = (options, path) =>
    assert.throws(() => new Compactor(options), (e) => e instanceof CompactionError && e.code === "INVALID_OPTIONS" && e.path === path);
  invalid({}, "contextWindow");
  invalid({ contextWindow: 100_000, keepRecent: 1 }, "keepRecent");
  invalid({ contextWindow: "big" }, "contextWindow");
  invalid({ contextWindow: 100_000, reserveTokens: 200_000 }, "reserveTokens");
  invalid({ contextWindow: 100_000, trigger: { fraction: 2 } }, "trigger.fraction");
  invalid({ contextWindow: 100_000, summarize: "not a function" }, "summarize");
  invalid({ contextWindow: 100_000, preset: "nope" }, "preset");
  assert.throws(() => new Compactor(null), (e) => e.code === "INVALID_OPTIONS");
});

test("bad messages are INVALID_INPUT with the path of the field", async () => {
  const compactor = new Compactor({ ...base, format: "ai-sdk", summarize: () => "s" });
  const messages = [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "tool-call", toolCallId: 7, toolName: "x", input: {} }] }];
  assert.throws(() => compactor.estimate(messages), (e) => e.code === "INVALID_INPUT" && e.path === "messages[1].content[0].toolCallId");
  await assert.rejects(compactor.compact("nope"), (e) => e.code === "INVALID_INPUT" && e.path === "messages");
});

test("maybeCompact continues from its last compaction instead of summarizing every step again", async () => {
  let calls = 0;
  const compactor = new Compactor({ ...base, summarize: () => (calls += 1, `summary ${calls}`) });
  const history = aiSdkHistory(30);
  const first = await compactor.maybeCompact(history);
  const callsAfterFirst = calls;
  assert.ok(first.length < history.length && callsAfterFirst >= 1);
  // The AI SDK hands prepareStep the whole history again, plus the new step.
  const step = [...history, { role: "user", content: "one more thing" }];
  const second = await compactor.maybeCompact(step);
  assert.equal(calls, callsAfterFirst, "no new summarizer call");
  assert.equal(second.length, first.length + 1);
  first.forEach((m, i) => assert.equal(second[i], m, "the same head and kept objects"));
  assert.equal(second.at(-1), step.at(-1), "the new message is the caller's object");
  // A changed prefix is a new history: it is compacted from scratch.
  const edited = structuredClone(step);
  edited[1].content = "a different first request";
  const third = await compactor.maybeCompact(edited);
  assert.ok(calls > callsAfterFirst);
  assert.ok(third.length < edited.length);
  // compact() never continues: it always works on what it is given.
  const manual = await compactor.compact(step);
  assert.equal(manual.compacted, true);
});
