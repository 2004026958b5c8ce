// The compaction pipeline both handles drive (src/core/pipeline): a Session follows onFailure,
// the circuit breaker and the summarizer check as a Compactor does; hooks that never settle are
// bounded by timeoutMs; compact()/prepare() called from inside the object's own summarizer or
// hook is refused at once; callbacks never run while the object is borrowed; a prune landing
// while a background compaction runs does not lose it; prepare() waits for a compaction running
// in the foreground (seed 004).
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor, Session } from "context-compaction";

/** AI SDK messages for turn `i`: a request, a tool call with its result, an answer. */
function turn(i, size = 400) {
  const body = `line ${i} `.repeat(size / 8);
  return [
    { role: "user", content: `request ${i}` },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "read", input: { path: `f${i}.rs` } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: `c${i}`, toolName: "read", output: { type: "text", value: body } }] },
    { role: "assistant", content: `answer ${i}` },
  ];
}

function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

const cbase = { contextWindow: 4_000, reserveTokens: 500, keepRecentTokens: 800 };
const base = { ...cbase, sessionId: "test" };
const never = () => new Promise(() => {});

/** A session past its trigger. */
function over(options) {
  const s = new Session({ ...base, ...options });
  let i = 0;
  while (!s.check().shouldCompact) s.append(turn(i++));
  return s;
}

const isCode = (code) => (e) => e instanceof CompactionError && e.code === code;
const failing = () => async () => {
  throw new Error("provider down");
};

test("Session.prepare follows onFailure as maybeCompact does", async () => {
  // auto (default): the context still fits the window, so it is sent unchanged; onError hears of it.
  const errors = [];
  const auto = over({ retries: 0, trigger: { fraction: 0.5 }, summarize: failing(), onError: (e) => errors.push(e.code) });
  const before = auto.toJSONL();
  const r = await auto.prepare();
  assert.equal(auto.toJSONL(), before);
  assert.equal(r.messages.length, auto.render().messages.length);
  assert.deepEqual(errors, ["SUMMARIZER_FAILED"]);
  // reject: the promise rejects, nothing changes.
  const reject = over({ retries: 0, summarize: failing(), onFailure: "reject" });
  const kept = reject.toJSONL();
  await assert.rejects(reject.prepare(), isCode("SUMMARIZER_FAILED"));
  assert.equal(reject.toJSONL(), kept);
  // extractive: the built-in summary is committed instead.
  const extractive = over({ retries: 0, summarize: failing(), onFailure: "extractive", onError: () => {} });
  await extractive.prepare();
  assert.equal(extractive.entries().filter((e) => e.type === "compaction").length, 1);
  assert.ok(!extractive.check().shouldCompact);
  // compact() always rejects, whatever the policy.
  const manual = over({ retries: 0, summarize: failing(), onFailure: "unchanged" });
  await assert.rejects(manual.compact(), isCode("SUMMARIZER_FAILED"));
});

test("Session.prepare stops calling a failing summarizer after maxConsecutiveFailures; compact() still calls it", async () => {
  let calls = 0;
  const s = over({
    retries: 0,
    maxConsecutiveFailures: 2,
    onFailure: "unchanged",
    onError: () => {},
    summarize: async () => {
      calls += 1;
      throw new Error("down");
    },
  });
  for (let k = 0; k < 5; k += 1) await s.prepare();
  assert.equal(calls, 2, "the breaker opened after two failures");
  await assert.rejects(s.compact(), isCode("SUMMARIZER_FAILED"));
  assert.equal(calls, 3);
});

test("a Session without a summarizer fails its first compaction with the Compactor's summarizer check", async () => {
  let expected;
  try {
    new Compactor({ contextWindow: 4_000 });
  } catch (e) {
    expected = e;
  }
  assert.ok(isCode("INVALID_OPTIONS")(expected));
  const s = over({});
  await assert.rejects(s.compact(), (e) => isCode("INVALID_OPTIONS")(e) && e.path === "summarize" && e.message === expected.message);
  await assert.rejects(s.prepare({ force: true }), (e) => e.message === expected.message);
});

test("hooks that never settle are bounded by timeoutMs and do not hang later calls", async () => {
  const history = Array.from({ length: 10 }, (_, i) => turn(i)).flat();
  const summarize = (r) => `summary of ${r.messages.length} messages`;
  const o = { ...cbase, timeoutMs: 20, retries: 0 };
  // onBeforeCompaction: the compaction does not run (TIMEOUT).
  const before = new Compactor({ ...o, summarize, onBeforeCompaction: never });
  await assert.rejects(before.compact(history), isCode("TIMEOUT"));
  // onAfterCompaction: the compaction stands, with a warning.
  const after = new Compactor({ ...o, summarize, onAfterCompaction: never });
  const r = await after.compact(history);
  assert.ok(r.compacted);
  assert.ok(r.warnings.some((w) => /onAfterCompaction did not settle/.test(w)));
  // onError: the swallowed failure still resolves.
  const onError = new Compactor({ ...o, summarize: failing(), onError: never });
  const m = await onError.maybeCompact(history);
  assert.equal(m, history);
  // A Session: prepare() resolves, and so does every later one.
  const s = over({ ...o, sessionId: "t", summarize, onAfterCompaction: never, onProgress: never });
  await s.prepare();
  assert.equal(s.entries().filter((e) => e.type === "compaction").length, 1);
  s.append(turn(99));
  await s.prepare();
  const stuck = over({ ...o, summarize, onBeforeCompaction: never, onFailure: "reject" });
  await assert.rejects(stuck.prepare(), isCode("TIMEOUT"));
  await assert.rejects(stuck.prepare(), isCode("TIMEOUT"));
  assert.equal(stuck.isCompacting, false);
});

test("compact() or prepare() from inside the object's own summarizer is refused at once (CONFLICT)", async () => {
  const seen = [];
  const s = over({
    summarize: async (r) => {
      // Called before the summarizer's first await, as `await session.compact()` is.
      const nested = [s.compact().catch((e) => e), s.prepare().catch((e) => e)];
      seen.push(...(await Promise.all(nested)));
      return `summary of ${r.messages.length} messages`;
    },
  });
  const r = await s.compact();
  assert.ok(r.compacted);
  assert.equal(seen.length, 2);
  for (const e of seen) assert.ok(isCode("CONFLICT")(e), String(e));
  assert.match(seen[0].message, /compact\(\) was called from inside this object's own summarizer/);

  const history = Array.from({ length: 10 }, (_, i) => turn(i)).flat();
  const inner = [];
  const c = new Compactor({
    ...cbase,
    summarize: async (r) => {
      const nested = [c.compact(history).catch((e) => e), c.maybeCompact(history).catch((e) => e)];
      inner.push(...(await Promise.all(nested)));
      return `summary of ${r.messages.length} messages`;
    },
  });
  assert.ok((await c.compact(history)).compacted);
  for (const e of inner) assert.ok(isCode("CONFLICT")(e), String(e));
  // Outside the summarizer the object works as before.
  assert.ok((await c.compact(history)).compacted);
});

test("getters of the caller's messages may call back into the object during render() and prune()", async () => {
  const s = new Session({ contextWindow: 100_000, format: "anthropic" });
  let reads = 0;
  const message = {
    role: "user",
    get content() {
      reads += 1;
      s.check();
      s.entries();
      return "hello";
    },
  };
  s.append([message, { role: "assistant", content: "hi" }]);
  const r = s.render();
  assert.equal(r.messages.length, 2);
  assert.ok(reads >= 2, "render read the caller's object");

  const c = new Compactor({ contextWindow: 100_000, summarize: () => "x", prune: { style: "opencode", protectTokens: 0, minimum: 0 } });
  const history = Array.from({ length: 4 }, (_, i) => turn(i, 4_000)).flat();
  const tool = history[2];
  let callbacks = 0;
  const wrapped = {
    role: "tool",
    get content() {
      callbacks += 1;
      c.check([{ role: "user", content: "another history" }]);
      return tool.content;
    },
  };
  history[2] = wrapped;
  const pruned = c.prune(history);
  assert.equal(pruned.length, history.length);
  assert.ok(callbacks >= 1);
  assert.notEqual(pruned[2], wrapped, "the result was pruned");
});

test("a TTL prune landing while a background compaction runs does not lose it", async () => {
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  const pi = (i, at) => [
    { role: "user", content: [{ type: "text", text: `request ${i}` }], timestamp: at },
    { role: "assistant", content: [{ type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `f${i}` } }], timestamp: at },
    { role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: `contents ${i} `.repeat(40) }], isError: false, timestamp: at },
  ];
  const gate = deferred();
  let calls = 0;
  const errors = [];
  const s = new Session({
    ...base,
    format: "pi",
    background: 0.5,
    prune: { style: "ttl", ttlMs: 60_000, keepRecent: 1, replacement: "[expired]" },
    onError: (e) => errors.push(e),
    summarize: async (r) => {
      calls += 1;
      await gate.promise;
      return `summary of ${r.messages.length} messages`;
    },
  });
  let i = 0;
  while (!s.check().background) s.append(pi(i, t0 + i++));
  await s.prepare({ now: t0 + 1_000 });
  assert.ok(s.isCompacting, "a background compaction started");
  await s.prepare({ now: t0 + 600_000 });
  assert.equal(s.entries().filter((e) => e.type === "prune").length, 1, "the prune landed meanwhile");
  gate.resolve();
  while (s.isCompacting) await new Promise((r) => setTimeout(r, 1));
  assert.equal(calls, 1);
  assert.deepEqual(errors, []);
  assert.equal(s.entries().filter((e) => e.type === "compaction").length, 1, "the compaction committed");
  const r = await s.prepare({ now: t0 + 600_000 });
  assert.equal(r.backgroundError, undefined);
  assert.ok(r.messages.some((m) => m.role === "toolResult" && m.content[0].text.startsWith("[expired]")), "kept results stay pruned");
});

test("prepare() below the trigger waits for a compaction running in the foreground (seed 004)", async () => {
  const gate = deferred();
  const s = new Session({
    ...base,
    summarize: async (r) => {
      await gate.promise;
      return `summary of ${r.messages.length} messages`;
    },
  });
  for (let i = 0; i < 10; i += 1) s.append(turn(i));
  assert.equal(s.check().shouldCompact, false);
  const order = [];
  const compacting = s.compact().then(() => order.push("compact"));
  const preparing = s.prepare().then((r) => (order.push("prepare"), r));
  await new Promise((r) => setImmediate(r));
  gate.resolve();
  const [, r] = await Promise.all([compacting, preparing]);
  assert.deepEqual(order, ["compact", "prepare"]);
  assert.equal(typeof r.summaryIndex, "number", "the request carries the new summary");
});
