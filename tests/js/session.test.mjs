// The stateful Session through the package's JS API: appending, checking, rendering with cache
// points, the JSONL log (byte-identical round trip, incremental flushes), branching, compaction
// with appends during the await, concurrent compactions, background compaction (finishing while
// turns go on, and overtaken by the hard threshold), and importing real agent session files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CompactionError, Session, validateMessages } from "context-compaction";
import { fixturePath } from "./fixtures.mjs";

const fixture = (p) => fixturePath(p);

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

const base = { contextWindow: 4_000, reserveTokens: 500, keepRecentTokens: 800, sessionId: "test" };

test("append, check and render cost no conversion of the history; the caller's objects come back", () => {
  const s = new Session({ ...base, summarize: () => "x" });
  const first = turn(0);
  const ids = s.append(first);
  assert.deepEqual(ids, ["e1", "e2", "e3", "e4"]);
  assert.equal(s.append(turn(1)[0]).length, 1, "one message appends too");
  const r = s.render();
  assert.equal(r.messages.length, 5);
  first.forEach((m, i) => assert.equal(r.messages[i], m, "unchanged messages are the caller's own objects"));
  assert.equal(r.format, "ai-sdk");
  const c = s.check();
  assert.equal(c.tokens, r.tokens);
  assert.equal(c.shouldCompact, false);
  assert.equal(typeof c.threshold, "number");
  assert.equal(s.version, 5);
  assert.equal(s.id, "test");
});

test("the log round-trips byte for byte, and flushes add up to it", async () => {
  const s = new Session({ ...base, summarize: (req) => `summary of ${req.messages.length} messages` });
  let file = "";
  for (let i = 0; i < 6; i += 1) {
    s.append(turn(i));
    file += s.flush();
  }
  await s.compact();
  file += s.flush();
  s.append(turn(6));
  file += s.flush();
  assert.equal(s.flush(), "");
  assert.equal(file, s.toJSONL());
  const loaded = Session.fromJSONL(file, base);
  assert.equal(loaded.toJSONL(), file);
  assert.deepEqual(loaded.render().messages, s.render().messages);
  assert.equal(loaded.check().tokens, s.check().tokens);
  const lines = file.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines[0].type, "session");
  const compaction = lines.find((l) => l.type === "compaction");
  for (const key of ["summary", "firstKeptEntryId", "tokensBefore", "tokensAfter", "round", "coveredTurnIds", "splitTurnId", "digest"]) {
    assert.ok(key in compaction, `compaction entry has ${key}`);
  }
  for (const l of lines.slice(1)) assert.ok(l.id && "parentId" in l, "every entry has id and parentId");
});

test("a bad log line is INVALID_INPUT naming the line", () => {
  const s = new Session(base);
  s.append(turn(0));
  const lines = s.toJSONL().split("\n");
  lines[2] = "{not json";
  assert.throws(() => Session.fromJSONL(lines.join("\n"), base), (e) => e instanceof CompactionError && e.code === "INVALID_INPUT" && e.path === "lines[2]");
});

test("compaction: summary first, tail kept, removed messages reported, log append-only", async () => {
  const requests = [];
  const s = new Session({ ...base, summarize: (req) => (requests.push(req), `summary round ${req.round}`) });
  const all = [];
  for (let i = 0; i < 8; i += 1) {
    const t = turn(i);
    all.push(...t);
    s.append(t);
  }
  const before = s.toJSONL();
  const result = await s.compact();
  assert.equal(result.compacted, true);
  assert.equal(result.round, 1);
  assert.ok(result.tokensAfter < result.tokensBefore);
  assert.ok(typeof result.entryId === "string");
  const r = s.render();
  assert.equal(r.summaryIndex, 0);
  assert.match(JSON.stringify(r.messages[0]), /summary round 1/);
  assert.deepEqual(validateMessages(r.messages), []);
  assert.ok(result.removed.every((m) => all.includes(m)), "removed are the caller's objects");
  assert.equal(result.removed.length + r.messages.length - 1, all.length);
  assert.ok(s.toJSONL().startsWith(before), "the log only grew");
  assert.ok(requests[0].messages.every((m) => all.includes(m)));
  // entries() lists the compaction with the numbers it recorded.
  const entry = s.entries().find((e) => e.id === result.entryId);
  assert.deepEqual(
    { type: entry.type, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter, round: entry.round },
    { type: "compaction", tokensBefore: result.tokensBefore, tokensAfter: result.tokensAfter, round: 1 },
  );
  assert.equal(entry.summary, result.summary);
  assert.match(entry.summary, /^summary round 1/);
  const kept = s.entries().find((e) => e.id === entry.firstKeptEntryId);
  assert.equal(kept.type, "message");
  // A second compaction folds the first summary in.
  for (let i = 8; i < 12; i += 1) s.append(turn(i));
  const second = await s.compact();
  assert.equal(second.round, 2);
  assert.equal(requests.at(-1).previousSummary?.includes("summary round 1"), true);
  const msgs = s.render().messages;
  assert.equal(msgs.filter((m) => JSON.stringify(m).includes("summary round")).length, 1, "one summary message");
});

test("messages appended while a compaction awaits its summary stay after the summary", async () => {
  const gate = deferred();
  const s = new Session({ ...base, summarize: async () => (await gate.promise, "late summary") });
  for (let i = 0; i < 8; i += 1) s.append(turn(i));
  const running = s.compact();
  assert.equal(s.isCompacting, true);
  const during = turn(8);
  s.append(during);
  gate.resolve();
  const result = await running;
  assert.equal(result.compacted, true);
  assert.equal(s.isCompacting, false);
  const msgs = s.render().messages;
  assert.deepEqual(msgs.slice(-4), during, "the new turn follows the summary and the kept tail");
  assert.deepEqual(validateMessages(msgs), []);
});

test("two compactions at once: the second waits for the first and never loses anything", async () => {
  const gate = deferred();
  let calls = 0;
  const s = new Session({ ...base, summarize: async (req) => (calls += 1, await gate.promise, `s${calls} r${req.round}`) });
  for (let i = 0; i < 10; i += 1) s.append(turn(i));
  const a = s.compact();
  const b = s.compact({ force: true });
  gate.resolve();
  const [ra, rb] = await Promise.all([a, b]);
  assert.equal(ra.compacted, true);
  assert.ok(rb.compacted === false || rb.round === 2, "the second ran after the first, folding it in");
  const log = s.toJSONL().trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(log.filter((l) => l.type === "message").length, 40, "every message is still in the log");
  assert.deepEqual(validateMessages(s.render().messages), []);
});

test("a failed or aborted compaction changes nothing", async () => {
  const s = new Session({ ...base, retries: 0, summarize: () => { throw new Error("provider down"); } });
  for (let i = 0; i < 8; i += 1) s.append(turn(i));
  const before = s.toJSONL();
  const version = s.version;
  await assert.rejects(s.compact(), (e) => e instanceof CompactionError && e.code === "SUMMARIZER_FAILED");
  assert.equal(s.toJSONL(), before);
  assert.equal(s.version, version);
  assert.equal(s.isCompacting, false);
  const controller = new AbortController();
  const t = new Session({ ...base, summarize: (req) => new Promise((_, reject) => req.signal.addEventListener("abort", () => reject(req.signal.reason))) });
  for (let i = 0; i < 8; i += 1) t.append(turn(i));
  const p = t.compact({ signal: controller.signal });
  controller.abort();
  await assert.rejects(p, (e) => e.code === "ABORTED");
  assert.equal(t.isCompacting, false);
});

test("branching after a compaction keeps it; before it undoes it", async () => {
  const s = new Session({ ...base, summarize: () => "early summary" });
  const ids = [];
  for (let i = 0; i < 8; i += 1) ids.push(...s.append(turn(i)));
  await s.compact();
  const later = s.append(turn(8));
  const after = s.branch(later[0]);
  assert.match(JSON.stringify(after.render().messages[0]), /early summary/);
  assert.deepEqual(after.render().messages.at(-1), turn(8)[0]);
  const before = s.branch(ids[5]);
  const msgs = before.render().messages;
  assert.equal(msgs.length, 6);
  assert.ok(!JSON.stringify(msgs).includes("early summary"), "the compaction is undone");
  assert.equal(s.render().messages.at(-1), turn(8).at(-1) === undefined ? undefined : s.render().messages.at(-1));
  assert.ok(before.toJSONL().split("\n")[0].includes("branchedFrom"));
  assert.throws(() => s.branch("nope"), (e) => e.code === "INVALID_INPUT");
});

test("background compaction finishes while turns go on", async () => {
  const gate = deferred();
  const s = new Session({ ...base, background: 0.5, summarize: async () => (await gate.promise, "background summary") });
  let i = 0;
  while (!s.check().background) s.append(turn(i++));
  assert.equal(s.check().shouldCompact, false);
  await s.prepare();
  assert.equal(s.isCompacting, true, "a background compaction started");
  const during = turn(i++);
  s.append(during);
  const r = await s.prepare();
  assert.ok(r.messages.includes(during[0]), "the turn went on without waiting");
  gate.resolve();
  while (s.isCompacting) await new Promise((r) => setTimeout(r, 1));
  const msgs = s.render().messages;
  assert.match(JSON.stringify(msgs[0]), /background summary/);
  assert.deepEqual(msgs.slice(-4), during, "what was appended meanwhile stays verbatim after it");
  assert.deepEqual(validateMessages(msgs), []);
});

test("a background compaction overtaken by the hard threshold makes the turn wait", async () => {
  const gate = deferred();
  let summaries = 0;
  const s = new Session({ ...base, background: 0.4, summarize: async () => (summaries += 1, await gate.promise, "bg") });
  let i = 0;
  while (!s.check().background) s.append(turn(i++));
  await s.prepare();
  assert.equal(s.isCompacting, true);
  while (!s.check().shouldCompact) s.append(turn(i++));
  let done = false;
  const waiting = s.prepare().then((r) => ((done = true), r));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(done, false, "the turn blocks while the summary is not ready");
  gate.resolve();
  const r = await waiting;
  assert.ok(r.tokens < s.check().threshold, "under the trigger after waiting");
  assert.equal(s.check().shouldCompact, false);
  assert.ok(summaries >= 1);
  assert.deepEqual(validateMessages(r.messages), []);
});

test("Anthropic rendering puts at most four cache_control markers on the cache points", () => {
  const s = new Session({ ...base, contextWindow: 100_000, format: "anthropic" });
  for (let i = 0; i < 6; i += 1) {
    s.append([{ role: "user", content: `q${i}` }, { role: "assistant", content: [{ type: "text", text: `a${i}` }] }]);
  }
  const r = s.render();
  assert.deepEqual(r.cachePoints.map((p) => p.kind), ["tail", "previous-turn", "pre-tail"]);
  const marked = r.messages.flatMap((m, i) => (JSON.stringify(m).includes("cache_control") ? [i] : []));
  assert.deepEqual(marked.sort((a, b) => a - b), r.cachePoints.map((p) => p.index).sort((a, b) => a - b));
  assert.equal(s.render({ reservedCachePoints: 2 }).messages.filter((m) => JSON.stringify(m).includes("cache_control")).length, 2);
  assert.equal(s.render({ cacheControl: false }).messages.filter((m) => JSON.stringify(m).includes("cache_control")).length, 0);
});

test("real pi and Claude Code files import into a Session with their own compactions", async () => {
  const pi = Session.fromSessionFile(readFileSync(fixture("pi/before-compaction.jsonl"), "utf8"), "pi", { contextWindow: 200_000 });
  const entries = pi.entries();
  assert.equal(entries.filter((e) => e.type === "compaction").length, 2);
  const live = pi.render();
  assert.equal(live.summaryIndex, 0);
  assert.ok(live.messages.length < entries.filter((e) => e.type === "message").length);
  const cc = Session.fromSessionFile(readFileSync(fixture("claude-code/tool_heavy.jsonl"), "utf8"), "claude-code", { contextWindow: 200_000 });
  assert.equal(cc.render().format, "anthropic");
  assert.ok(cc.render().messages.length > 10);
  // Round trip of an imported session.
  const text = pi.toJSONL();
  assert.equal(Session.fromJSONL(text, { contextWindow: 200_000 }).toJSONL(), text);
});

test("bad options and bad input are typed errors with a path", () => {
  assert.throws(() => new Session({ contextWindow: 1000, background: 2 }), (e) => e.code === "INVALID_OPTIONS" && e.path === "background");
  assert.throws(() => new Session({ contextWindow: 1000, bogus: 1 }), (e) => e.code === "INVALID_OPTIONS");
  const s = new Session(base);
  assert.throws(() => s.append(42), (e) => e.code === "INVALID_INPUT");
  assert.throws(() => s.append([{ content: "no role" }]), (e) => e.code === "INVALID_INPUT" && e.path.startsWith("messages[0]"));
  assert.throws(() => s.recordUsage({ input: 1, output: 1 }), (e) => e.code === "INVALID_INPUT");
});

test("workstream state: deltas merge under the limits, render after the summary, reach the next summarizer", async () => {
  const seen = [];
  let n = 0;
  const s = new Session({
    ...base,
    summarize: (req) => {
      seen.push(req.state);
      n += 1;
      return { summary: `summary ${n}`, state: { decisions: Array.from({ length: 6 }, (_, i) => `decision ${n}.${i}`), tasks: [`task ${n}`] } };
    },
  });
  for (let i = 0; i < 8; i += 1) s.append(turn(i));
  const first = await s.compact();
  assert.equal(first.state.decisions.length, 6);
  assert.match(JSON.stringify(s.render().messages[0]), /WORKSTREAM STATE:\\nKey decisions:/);
  for (let i = 8; i < 14; i += 1) s.append(turn(i));
  const second = await s.compact();
  assert.equal(seen[0], undefined);
  assert.deepEqual(seen.at(-1).tasks, ["task 1"], "the summarizer sees the state so far");
  assert.equal(second.state.decisions.length, 8, "decisions are capped at 8, newest kept");
  assert.equal(second.state.decisions.at(-1), "decision 2.5");
  assert.deepEqual(second.state.tasks, ["task 1", "task 2"]);
  const text = s.toJSONL();
  assert.equal(Session.fromJSONL(text, base).toJSONL(), text);
  assert.deepEqual(Session.fromJSONL(text, base).render().messages[0], s.render().messages[0]);
  // A misspelled field is an invalid answer: nothing changes.
  const bad = new Session({ ...base, retries: 0, summarize: () => ({ summary: "x", state: { decisons: ["a"] } }) });
  for (let i = 0; i < 8; i += 1) bad.append(turn(i));
  const before = bad.toJSONL();
  await assert.rejects(bad.compact(), (e) => e.code === "SUMMARIZER_FAILED" && /decisons/.test(e.message));
  assert.equal(bad.toJSONL(), before);
});

test("memory block: at 15 notes the oldest 10 are condensed, blending the previous summary", async () => {
  const requests = [];
  const s = new Session({ ...base, summarize: (req) => (requests.push(req), `memory summary ${requests.length}`) });
  s.append(turn(0));
  for (let i = 0; i < 14; i += 1) s.addNote(`note ${i}`);
  await s.prepare();
  assert.equal(requests.length, 0, "14 notes are not due");
  s.addNote("note 14");
  await s.prepare();
  assert.equal(requests.length, 1);
  assert.equal(requests[0].purpose, "memory");
  assert.match(requests[0].prompt, /1\. note 0\n[\s\S]*10\. note 9\n/);
  const m = s.memory();
  assert.equal(m.summary, "memory summary 1");
  assert.deepEqual(m.notes, ["note 10", "note 11", "note 12", "note 13", "note 14"]);
  assert.match(m.text, /memory summary 1[\s\S]*- note 14/);
  for (let i = 15; i < 25; i += 1) s.addNote(`note ${i}`);
  await s.prepare();
  assert.match(requests[1].prompt, /<previous-summary>\nmemory summary 1\n/);
  assert.deepEqual(Session.fromJSONL(s.toJSONL(), base).memory(), s.memory());
});

test("TTL pruning runs first in prepare(): expired tool results are hidden behind the replacement, in the log", async () => {
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  const pi = (i, at) => [
    { role: "user", content: [{ type: "text", text: `request ${i}` }], timestamp: at },
    { role: "assistant", content: [{ type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `f${i}` } }], timestamp: at },
    { role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: `contents ${i} `.repeat(50) }], isError: false, timestamp: at },
  ];
  const s = new Session({ contextWindow: 100_000, format: "pi", prune: { style: "ttl", ttlMs: 60_000, keepRecent: 1, replacement: "[expired]" } });
  s.append([...pi(0, t0), ...pi(1, t0 + 1_000), ...pi(2, t0 + 120_000)]);
  const before = s.render().tokens;
  const r = await s.prepare({ now: t0 + 130_000 });
  const results = r.messages.filter((m) => m.role === "toolResult");
  assert.deepEqual(results.map((m) => m.content[0].text.startsWith("[expired]")), [true, true, false], "older than 60 s and not the newest");
  assert.ok(r.tokens < before);
  assert.ok(s.entries().some((e) => e.type === "prune"));
  // Hidden parts survive a reload; the messages themselves are still in the log.
  const text = s.toJSONL();
  assert.ok(text.includes("contents 0"));
  assert.deepEqual(Session.fromJSONL(text, { contextWindow: 100_000 }).render().messages, s.render().messages);
  // Nothing new expires: no second prune entry.
  await s.prepare({ now: t0 + 131_000 });
  assert.equal(s.entries().filter((e) => e.type === "prune").length, 1);
  assert.throws(() => new Session({ contextWindow: 1000, prune: { style: "ttl", ttlMs: 0 } }), (e) => e.code === "INVALID_OPTIONS");
});

test("a failed background compaction changes nothing and is reported once by the next prepare()", async () => {
  let calls = 0;
  const s = new Session({ ...base, background: 0.5, retries: 0, summarize: async () => { calls += 1; throw new Error("provider down"); } });
  let i = 0;
  while (!s.check().background) s.append(turn(i++));
  const before = s.toJSONL();
  await s.prepare();
  while (s.isCompacting) await new Promise((r) => setTimeout(r, 1));
  assert.equal(s.toJSONL(), before, "nothing changed");
  const r = await s.prepare();
  assert.equal(r.backgroundError?.code, "SUMMARIZER_FAILED");
  assert.equal(calls >= 1, true);
  while (s.isCompacting) await new Promise((r) => setTimeout(r, 1));
  const again = await s.prepare();
  assert.ok(again.backgroundError === undefined || again.backgroundError.code === "SUMMARIZER_FAILED");
});

test("a few short requests before a long split turn: the history summary may be longer than their text, the compaction still shrinks", async () => {
  const summarize = async (r) =>
    "Conversation summary (written by the summarizer, round 1). The user asked, in order:\n" +
    r.messages.filter((m) => m.role === "user").map((m) => `- ${m.content}`).join("\n");
  const s = new Session({ contextWindow: 6000, format: "ai-sdk", summarize });
  for (let i = 0; i < 6; i++) s.append({ role: "user", content: `Tell me about x in detail (0.${i})` });
  for (let i = 0; i < 6; i++) s.append({ role: "assistant", content: `Reply ${i}. ` + "Every detail here is scripted. ".repeat(150) });
  const before = s.check().tokens;
  const { tokens } = await s.prepare();
  assert.ok(tokens < before / 2, `${before} → ${tokens}`);
  assert.equal(s.check().shouldCompact, false);
});

test("codex: the Session renders what the Compactor returns (recent user messages kept from the summarized part), also after a reload", async () => {
  const h = [];
  for (let i = 0; i < 24; i++) {
    h.push({ role: "user", content: `request ${i} ` + "word ".repeat(200) });
    h.push({ role: "assistant", content: `answer ${i} ` + "text ".repeat(600) });
  }
  const options = { contextWindow: 40_000, preset: "codex", format: "ai-sdk", summarize: async (r) => `SUMMARY of ${r.messages.length}` };
  const { Compactor, memoryStore } = await import("context-compaction");
  const expected = (await new Compactor(options).compact(h)).messages;
  const s = new Session(options);
  s.append(h);
  const result = await s.compact();
  assert.ok(result.tokensAfter < result.tokensBefore / 2);
  const contents = (messages) => messages.map((m) => m.content);
  assert.deepEqual(contents(s.render().messages), contents(expected));
  assert.equal(s.check().tokens, result.tokensAfter);
  assert.deepEqual(contents(Session.fromJSONL(s.toJSONL(), options).render().messages), contents(expected));
  // Kept in a store, a fresh open reads the same context.
  const store = memoryStore();
  const a = await Session.open(store, "codex", options);
  a.append(h);
  await a.compact();
  const b = await Session.open(store, "codex", options);
  assert.deepEqual(contents(b.render().messages), contents(expected));
  // A message appended after the compaction follows the kept ones.
  s.append({ role: "user", content: "next" });
  assert.deepEqual(contents(s.render().messages), [...contents(expected), "next"]);
});

test("seed 002's recursive strategy feeds the prior summary back as === PRIOR SUMMARY === context", async () => {
  const prompts = [];
  const s = new Session({
    contextWindow: 8_000,
    format: "ai-sdk",
    strategy: { type: "recursive", keep: 4, overlap: 2 },
    summarize: async (req) => {
      prompts.push(req.prompt);
      return `summary number ${prompts.length}`;
    },
  });
  const turn = (i) => [{ role: "user", content: `question ${i} ${"about the code ".repeat(40)}` }, { role: "assistant", content: `answer ${i} ${"here is the change ".repeat(40)}` }];
  for (let i = 0; i < 6; i++) s.append(turn(i));
  await s.compact();
  for (let i = 6; i < 10; i++) s.append(turn(i));
  await s.compact();
  assert.equal(prompts.length, 2);
  assert.ok(!prompts[0].includes("=== PRIOR SUMMARY ==="));
  assert.match(prompts[1], /=== PRIOR SUMMARY ===\nsummary number 1\n/);
  // The summary is a synthetic turn: the shadow prompt, then the summary as the assistant's answer.
  const [question, answer] = s.render().messages;
  assert.equal(question.role, "user");
  assert.equal(answer.role, "assistant");
  assert.match(answer.content, /summary number 2/);
});

test('summarize: "extractive": the memory block condenses its notes without a model, and prepare() keeps working', async () => {
  const s = new Session({ contextWindow: 8000, summarize: "extractive", format: "ai-sdk" });
  s.append({ role: "user", content: "hi" });
  for (let i = 0; i < 16; i++) s.addNote(`note ${i}`);
  await s.prepare();
  const memory = s.memory();
  assert.deepEqual(memory.notes, ["note 10", "note 11", "note 12", "note 13", "note 14", "note 15"]);
  assert.equal(memory.summary, Array.from({ length: 10 }, (_, i) => `- note ${i}`).join("\n"));
  for (let i = 16; i < 40; i++) s.addNote(`note ${i}`);
  await s.prepare();
  // One prepare() condenses the oldest 10 of 30: the new summary follows the previous one.
  assert.equal(s.memory().notes.length, 20);
  assert.match(s.memory().summary, /^- note 0\n[\s\S]*- note 19$/);
});

test("opencode: prepare() adds the continue message as maybeCompact does, and the log keeps it", async () => {
  const h = [];
  for (let i = 0; i < 70; i++) {
    h.push({ role: "user", content: `request ${i} ` + "word ".repeat(300) });
    h.push({ role: "assistant", content: `answer ${i} ` + "text ".repeat(600) });
  }
  const options = { contextWindow: 40_000, preset: "opencode", format: "ai-sdk", summarize: async (r) => `SUMMARY of ${r.messages.length}` };
  const { Compactor } = await import("context-compaction");
  const expected = await new Compactor(options).maybeCompact(h);
  assert.match(expected.at(-1).content, /Continue if you have next steps/);
  const s = new Session(options);
  s.append(h);
  const { messages } = await s.prepare();
  const contents = (list) => list.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
  assert.deepEqual(contents(messages), contents(expected));
  assert.deepEqual(contents(Session.fromJSONL(s.toJSONL(), options).render().messages), contents(expected));
});

test("render and prepare options of the wrong type or range are INVALID_OPTIONS naming them", async () => {
  const s = new Session({ contextWindow: 8000, summarize: "extractive", format: "anthropic" });
  s.append({ role: "user", content: "hello" });
  assert.throws(() => s.render({ reservedCachePoints: -1 }), (e) => e.code === "INVALID_OPTIONS" && e.path === "reservedCachePoints");
  assert.throws(() => s.render({ reservedCachePoints: 1.5 }), (e) => e.code === "INVALID_OPTIONS" && e.path === "reservedCachePoints");
  assert.throws(() => s.render({ cacheControl: "yes" }), (e) => e.code === "INVALID_OPTIONS" && e.path === "cacheControl");
  await assert.rejects(s.prepare({ now: NaN }), (e) => e.code === "INVALID_OPTIONS" && e.path === "now");
  assert.equal(s.render({ reservedCachePoints: 4, cacheControl: false }).messages.length, 1);
  const { Compactor } = await import("context-compaction");
  for (const [key, value] of [["timeoutMs", 2 ** 31], ["retries", 1e6]]) {
    assert.throws(() => new Compactor({ contextWindow: 8000, summarize: "extractive", [key]: value }), (e) => e.code === "INVALID_OPTIONS" && e.path === key);
  }
});
