// Fidelity to the seeds and presets (issue 8): earlier summaries are recognized whoever wrote them
// and their rounds continue, the digest obeys the tool allow-list, seed 004's rollup threshold, a
// failing summarizer never ends the agent loop, seed 002's strategies run without a model, TTL
// pruning, each preset's own prompt, and the preset defaults. Then every preset through two
// compactions in every format.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, CompactionError, Session, validateMessages } from "context-compaction";

// --- histories in every format, numbered from `from` so that later turns never reuse an id ---
const read = (i) => `pub fn f${i}() -> u32 { ${i} }\n`.repeat(90);
const ask = (i) => `Turn ${i}: fix the bug in src/mod${i}.rs and keep the API stable. `.repeat(3);
const generators = {
  "ai-sdk": (from, n, system = true) => {
    const m = system && from === 0 ? [{ role: "system", content: "You are a careful coding agent." }] : [];
    for (let i = from; i < from + n; i++) {
      m.push({ role: "user", content: ask(i) });
      m.push({ role: "assistant", content: [{ type: "text", text: "Reading it." }, { type: "tool-call", toolCallId: `c${i}`, toolName: "read", input: { path: `src/mod${i}.rs` } }] });
      m.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `c${i}`, toolName: "read", output: { type: "text", value: read(i) } }] });
      m.push({ role: "assistant", content: `Fixed src/mod${i}.rs.` });
    }
    return m;
  },
  openai: (from, n) => {
    const m = from === 0 ? [{ role: "system", content: "You are a careful coding agent." }] : [];
    for (let i = from; i < from + n; i++) {
      m.push({ role: "user", content: ask(i) });
      m.push({ role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read", arguments: JSON.stringify({ path: `src/mod${i}.rs` }) } }] });
      m.push({ role: "tool", tool_call_id: `call_${i}`, content: read(i) });
      m.push({ role: "assistant", content: `Fixed src/mod${i}.rs.` });
    }
    return m;
  },
  anthropic: (from, n) => {
    const m = [];
    for (let i = from; i < from + n; i++) {
      m.push({ role: "user", content: [{ type: "text", text: ask(i) }] });
      m.push({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "read", input: { path: `src/mod${i}.rs` } }] });
      m.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: read(i) }] });
      m.push({ role: "assistant", content: [{ type: "text", text: `Fixed src/mod${i}.rs.` }] });
    }
    return m;
  },
  pi: (from, n) => {
    const m = [];
    for (let i = from; i < from + n; i++) {
      const timestamp = 1_700_000_000_000 + i * 60_000;
      m.push({ role: "user", content: ask(i), timestamp });
      m.push({ role: "assistant", content: [{ type: "text", text: "Reading it." }, { type: "toolCall", id: `t${i}`, name: "read", arguments: { path: `src/mod${i}.rs` } }], timestamp });
      m.push({ role: "toolResult", toolCallId: `t${i}`, toolName: "read", content: [{ type: "text", text: read(i) }], isError: false, timestamp });
      m.push({ role: "assistant", content: [{ type: "text", text: `Fixed src/mod${i}.rs.` }], timestamp });
    }
    return m;
  },
};
const FORMATS = Object.keys(generators);

/** All text of a message in any format. */
function textOf(m) {
  const c = m.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c.map((p) => (typeof p.text === "string" ? p.text : "")).join("\n");
}
const countSummaries = (messages) => messages.filter((m) => textOf(m).includes("SUMMARY(")).length;

/** A summarizer that records its requests and answers with a short marked summary. */
function recorder() {
  const requests = [];
  const summarize = (req) => {
    requests.push(req);
    return `SUMMARY(round ${req.round}) of ${req.messages.length} messages.`;
  };
  return { requests, summarize };
}
const lastHistoryRequest = (requests) => requests.filter((r) => r.purpose !== "turn-prefix").at(-1);

// --- defect 1: earlier summaries recognized, rounds recovered ---

test("seed-004: the second compaction folds the first system summary in (compact and maybeCompact)", async () => {
  for (const method of ["compact", "maybeCompact"]) {
    const { requests, summarize } = recorder();
    const c = new Compactor({ preset: "seed-004", contextWindow: 60_000, summarize, retryDelayMs: 1 });
    const run = async (messages) => (method === "compact" ? (await c.compact(messages)).messages : c.maybeCompact(messages));
    const first = await run(generators["ai-sdk"](0, 30));
    assert.equal(countSummaries(first), 1, method);
    const second = await run([...first, ...generators["ai-sdk"](30, 30)]);
    assert.equal(countSummaries(second), 1, `${method}: one summary message, not two`);
    const last = lastHistoryRequest(requests);
    assert.match(last.previousSummary ?? "", /SUMMARY\(round 1\)/, method);
    assert.equal(last.round, 2, method);
    assert.equal(second[0].role, "system");
    assert.match(second[1].content, /^Compacted context summary:\n/);
  }
});

test("a fresh Compactor recognizes the summary of opencode, anthropic-api, seed-001 and custom styles", async () => {
  const cases = {
    opencode: { preset: "opencode" },
    "anthropic-api": { preset: "anthropic-api" },
    "seed-001": { preset: "seed-001" },
    summaryPrefix: { summaryPrefix: "Where we stand:\n", summarySuffix: "" },
    summaryQuestion: { summaryQuestion: "Where are we?", summaryRole: "assistant", summaryPrefix: "", summarySuffix: "" },
  };
  for (const [name, options] of Object.entries(cases)) {
    const base = { contextWindow: 60_000, maxOutputTokens: 8_000, keepRecentTokens: 3_000, retryDelayMs: 1, ...options };
    const one = recorder();
    const first = await new Compactor({ ...base, summarize: one.summarize }).compact(generators["ai-sdk"](0, 30), { force: true });
    const two = recorder();
    const second = await new Compactor({ ...base, summarize: two.summarize }).compact([...first.messages, ...generators["ai-sdk"](30, 20)], { force: true });
    const last = lastHistoryRequest(two.requests);
    assert.match(last.previousSummary ?? "", /SUMMARY\(round 1\)/, `${name}: the previous summary is found`);
    assert.equal(second.round, 2, `${name}: round 2`);
    assert.equal(countSummaries(second.messages), 1, `${name}: one summary message`);
  }
});

test("a new Session recognizes a custom-framed summary among appended messages, and in a log read back", async () => {
  const cases = {
    summaryPrefix: { summaryPrefix: "Where we stand:\n", summarySuffix: "" },
    summaryQuestion: { summaryQuestion: "Where are we?", summaryRole: "assistant", summaryPrefix: "", summarySuffix: "" },
  };
  for (const [name, options] of Object.entries(cases)) {
    const base = { contextWindow: 60_000, maxOutputTokens: 8_000, keepRecentTokens: 3_000, retryDelayMs: 1, format: "ai-sdk", ...options };
    const one = recorder();
    const first = await new Compactor({ ...base, summarize: one.summarize }).compact(generators["ai-sdk"](0, 30), { force: true });
    const two = recorder();
    const session = new Session({ ...base, summarize: two.summarize });
    session.append([...first.messages, ...generators["ai-sdk"](30, 20)]);
    const summaryIndex = first.messages.findIndex((m) => /SUMMARY\(round 1\)/.test(textOf(m)));
    assert.equal(session.render({ cacheControl: false }).summaryIndex, summaryIndex, `${name}: the summary is recognized on append`);
    const reread = Session.fromJSONL(session.toJSONL(), { ...base, summarize: two.summarize });
    assert.equal(reread.render({ cacheControl: false }).summaryIndex, summaryIndex, `${name}: and in the log read back`);
    const second = await session.compact({ force: true });
    assert.match(lastHistoryRequest(two.requests).previousSummary ?? "", /SUMMARY\(round 1\)/, `${name}: the previous summary is folded in`);
    assert.equal(second.round, 2, `${name}: round 2`);
    assert.equal(countSummaries(session.render({ cacheControl: false }).messages), 1, `${name}: one summary message`);
  }
});

test("seed 001's own heading is recognized: a fresh Compactor on a round-3 history writes round 4", async () => {
  const { requests, summarize } = recorder();
  const history = [
    { role: "system", content: "You are a careful coding agent." },
    { role: "assistant", content: "## Session Summary (Round 3)\n\n### Original Task\nBuild a flashcard app\n\nSUMMARY-3" },
    ...generators["ai-sdk"](0, 40, false),
  ];
  const c = new Compactor({ preset: "seed-001", contextWindow: 128_000, summarize });
  const result = await c.compact(history, { force: true });
  assert.equal(result.round, 4);
  const last = lastHistoryRequest(requests);
  assert.equal(last.round, 4);
  assert.match(last.previousSummary, /SUMMARY-3/);
  assert.match(last.prompt, /### Session Summary \(Compaction Round 4\)/);
  const summary = result.messages[1];
  assert.equal(summary.role, "assistant");
  assert.match(summary.content, /^## Session Summary \(Compaction Round 4\)\n/);
  assert.match(summary.content, /This summary incorporates context from 3 previous compaction rounds\./);
  assert.equal(result.messages.filter((m) => /Session Summary/.test(textOf(m))).length, 1);
});

// --- defect 2: the digest obeys the tool allow-list ---

test("seed-004: the digest leaves out what the transcript's allow-list excluded", async () => {
  const m = [{ role: "system", content: "agent" }];
  for (let i = 0; i < 12; i++) {
    m.push({ role: "user", content: `Question ${i}: ${"please look into it. ".repeat(40)}` });
    m.push({ role: "assistant", content: [
      { type: "tool-call", toolCallId: `b${i}`, toolName: "bash", input: { command: `cat /secret/dir${i}/key.pem` } },
      { type: "tool-call", toolCallId: `r${i}`, toolName: "read", input: { path: `/private/notes${i}.txt` } },
      { type: "tool-call", toolCallId: `l${i}`, toolName: "linearCreateIssue", input: { title: `Issue ${i}` } },
    ] });
    m.push({ role: "tool", content: [
      { type: "tool-result", toolCallId: `b${i}`, toolName: "bash", output: { type: "error-text", value: `error: permission denied /secret/dir${i}` } },
      { type: "tool-result", toolCallId: `r${i}`, toolName: "read", output: { type: "text", value: "x".repeat(3_000) } },
      { type: "tool-result", toolCallId: `l${i}`, toolName: "linearCreateIssue", output: { type: "error-text", value: `Linear error: rate limited ${i}` } },
    ] });
    m.push({ role: "assistant", content: `Done ${i}.` });
  }
  const { requests, summarize } = recorder();
  const result = await new Compactor({ preset: "seed-004", contextWindow: 60_000, summarize }).compact(m, { force: true });
  const context = JSON.stringify(result.messages.slice(0, 2));
  assert.doesNotMatch(context, /secret|private\/notes|key\.pem/, "nothing of the excluded tools in the summary");
  assert.deepEqual(result.digest.commands, []);
  assert.deepEqual(result.digest.filesRead, []);
  assert.ok(result.digest.errors.every((e) => e.startsWith("linearCreateIssue:")), result.digest.errors.join("; "));
  assert.ok(result.digest.errors.length > 0, "allowed tools still count");
  assert.doesNotMatch(requests[0].transcript, /secret|private\/notes/);
});

// --- defect 3: the rollup threshold is the preset's ---

test("seed-004 rolls a summary up only above 80,000 tokens", async () => {
  const m = [{ role: "system", content: "agent" }];
  for (let i = 0; i < 30; i++) {
    m.push({ role: "user", content: `Request ${i}: ${"the details of this request matter a lot. ".repeat(70)}` });
    m.push({ role: "assistant", content: `Answer ${i}.` });
  }
  const purposes = [];
  // About 20,000 tokens at chars/3: above the 13,107-token summary budget, below 80,000.
  const summarize = (req) => (purposes.push(req.purpose), `SUMMARY(round ${req.round}) ${"fact. ".repeat(10_000)}`);
  const result = await new Compactor({ preset: "seed-004", contextWindow: 200_000, summarize }).compact(m, { force: true });
  assert.equal(result.compacted, true);
  assert.deepEqual(purposes, ["history"], "no rollup below 80,000 tokens");
});

// --- defect 4: a summarizer failure does not end the agent loop ---

const failing = () => {
  throw new Error("provider is down");
};

test("maybeCompact: by default a failed summary leaves the messages unchanged while they fit, and reports it", async () => {
  const errors = [];
  const history = generators["ai-sdk"](0, 30);
  const c = new Compactor({ contextWindow: 60_000, keepRecentTokens: 3_000, trigger: { tokens: 20_000 }, retries: 0, summarize: failing, onError: (e) => errors.push(e) });
  const out = await c.maybeCompact(history);
  assert.deepEqual(out, history, "unchanged");
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof CompactionError);
  assert.equal(errors[0].code, "SUMMARIZER_FAILED");
});

test("maybeCompact: past the window's room the default falls back to an extractive summary", async () => {
  const errors = [];
  const history = generators["ai-sdk"](0, 60);
  const c = new Compactor({ contextWindow: 60_000, keepRecentTokens: 3_000, retries: 0, summarize: failing, onError: (e) => errors.push(e) });
  assert.ok(c.check(history).tokens > 60_000 - 15_000, "the history no longer fits");
  const out = await c.maybeCompact(history);
  assert.ok(out.length < history.length, "the context shrank");
  const summary = textOf(out[1]);
  assert.match(summary, /Extractive summary/);
  assert.match(summary, /## User requests\n- Turn 0: fix the bug/);
  assert.match(summary, /src\/mod0\.rs/);
  assert.match(summary, /## Last assistant message\nFixed src\/mod\d+\.rs\./);
  assert.equal(errors.length, 1);
});

test("maybeCompact: onFailure unchanged, extractive and reject; a missing summarize is reported at construction", async () => {
  const history = generators["ai-sdk"](0, 60);
  const base = { contextWindow: 60_000, keepRecentTokens: 3_000, retries: 0, summarize: failing, onError: () => {} };
  assert.deepEqual(await new Compactor({ ...base, onFailure: "unchanged" }).maybeCompact(history), history);
  const small = generators["ai-sdk"](0, 30);
  const shrunk = await new Compactor({ ...base, trigger: { tokens: 20_000 }, onFailure: "extractive" }).maybeCompact(small);
  assert.ok(shrunk.length < small.length);
  await assert.rejects(new Compactor({ ...base, onFailure: "reject" }).maybeCompact(history), (e) => e.code === "SUMMARIZER_FAILED");
  assert.throws(() => new Compactor({ contextWindow: 60_000 }), (e) => e instanceof CompactionError && e.code === "INVALID_OPTIONS" && e.path === "summarize");
  assert.throws(() => new Compactor({ contextWindow: 60_000, summarize: "abstractive" }), (e) => e.code === "INVALID_OPTIONS" && e.path === "summarize");
  assert.throws(() => new Compactor({ ...base, onFailure: "ignore" }), (e) => e.code === "INVALID_OPTIONS" && e.path === "onFailure");
  const builtIn = await new Compactor({ contextWindow: 60_000, keepRecentTokens: 3_000, summarize: "extractive" }).compact(history);
  assert.match(textOf(builtIn.messages[1]), /Extractive summary/);
});

// --- defect 5: seed 002's strategies without a model ---

test("seed 002: sliding window, turn window and token budget drop and archive without a model", async () => {
  const earlier = { role: "user", content: "The conversation history before this point was compacted into the following summary:\n\nearlier work" };
  const history = [{ role: "system", content: "agent" }, earlier, ...generators["ai-sdk"](0, 10, false)];
  for (const strategy of [{ type: "sliding-window", keep: 10 }, { type: "turn-window", keep: 2 }, { type: "token-budget", maxTokens: 4_000 }]) {
    const c = new Compactor({ contextWindow: 60_000, strategy });
    const result = await c.compact(history);
    assert.equal(result.compacted, true, strategy.type);
    assert.equal(result.summary, null, strategy.type);
    assert.equal(result.messages[0], history[0], "the system message first");
    assert.equal(result.messages[1], earlier, "the earlier summary kept, placed first");
    const kept = result.messages.slice(2);
    assert.equal(kept[0].role, "user", `${strategy.type}: the kept window starts at a user message`);
    assert.equal(result.removed.length + result.messages.length, history.length, strategy.type);
    for (const m of result.removed) assert.ok(history.includes(m));
    assert.deepEqual(validateMessages(result.messages), []);
  }
  const turns = await new Compactor({ contextWindow: 60_000, strategy: { type: "turn-window", keep: 2 } }).compact(history);
  assert.equal(turns.messages.length, 2 + 8, "two whole turns");
});

test("seed 002: the turn window keeps the preamble before the first user message", async () => {
  const preamble = { role: "assistant", content: "Hello! I can help with your repository." };
  const history = [{ role: "system", content: "agent" }, preamble, ...generators["ai-sdk"](0, 6, false)];
  const result = await new Compactor({ contextWindow: 60_000, strategy: { type: "turn-window", keep: 2 } }).compact(history);
  assert.deepEqual(result.messages.slice(0, 2), [history[0], preamble]);
  assert.equal(result.messages.length, 2 + 8);
});

test("seed 002: a blank summary leaves the history unchanged and reaches the failure callback", async () => {
  const errors = [];
  const history = generators["ai-sdk"](0, 20);
  const c = new Compactor({ contextWindow: 60_000, strategy: { type: "recursive", keep: 10 }, retries: 0, summarize: () => "  ", onError: (e) => errors.push(e.code) });
  await assert.rejects(c.compact(history), (e) => e.code === "SUMMARY_EMPTY");
  assert.deepEqual(errors, ["SUMMARY_EMPTY"]);
});

test("seed 002: shadow prompts of synthetic summary turns do not count as turns", async () => {
  const history = generators["ai-sdk"](0, 20);
  const c = new Compactor({ contextWindow: 200_000, strategy: { type: "recursive", keep: 12 }, summarize: (r) => `SUMMARY(round ${r.round})` });
  const { messages } = await c.compact(history);
  assert.equal(messages[1].role, "user", "the shadow prompt");
  assert.equal(messages[2].role, "assistant", "the summary answers it");
  assert.match(textOf(messages[2]), /SUMMARY\(round 1\)/);
  const realTurns = messages.filter((m) => m.role === "user").length - 1;
  const turns = new Compactor({ contextWindow: 200_000, trigger: { turns: realTurns }, summarize: "extractive" });
  assert.equal(turns.check(messages).shouldCompact, false, `${realTurns} real turns do not exceed ${realTurns}`);
  const fewer = new Compactor({ contextWindow: 200_000, trigger: { turns: realTurns - 1 }, summarize: "extractive" });
  assert.equal(fewer.check(messages).shouldCompact, true);
});

// --- defect 6: TTL pruning from JS ---

test("seed 003: TTL pruning hides old tool outputs with replacement text", () => {
  const history = generators.pi(0, 6);
  const now = history.at(-1).timestamp + 10 * 60_000;
  const c = new Compactor({ contextWindow: 60_000, summarize: "extractive", prune: { style: "ttl", ttlMs: 5 * 60_000, keepRecent: 1, replacement: "[expired]", supersede: false } });
  const realNow = Date.now;
  Date.now = () => now;
  let result;
  try {
    result = c.prune(history);
  } finally {
    Date.now = realNow;
  }
  const results = result.filter((m) => m.role === "toolResult");
  assert.ok(results.slice(0, -1).every((m) => textOf(m) === "[expired]"), "expired outputs replaced");
  assert.notEqual(textOf(results.at(-1)), "[expired]", "the most recent is kept");
});

// --- defect 8: defaults that follow the seeds ---

test("preset defaults follow the seeds", async () => {
  const threshold = (options) => new Compactor({ summarize: "extractive", ...options }).check([]).threshold;
  assert.equal(threshold({ preset: "opencode", contextWindow: 200_000, maxOutputTokens: 32_000 }), 168_001, "OpenCode: context − output");
  assert.equal(threshold({ preset: "seed-001" }), 93_600, "seed 001 falls back to 128k");
  assert.equal(threshold({ preset: "seed-001", model: "some-unknown-model" }), 93_600);
  assert.equal(threshold({ preset: "seed-004" }), 140_000, "seed 004 assumes 200k");
  assert.throws(() => threshold({ preset: "pi" }), (e) => e.code === "INVALID_OPTIONS" && e.path === "contextWindow");
  // seed-000 never cuts mid-turn; pi does. The last turn reads twenty files.
  const history = generators["ai-sdk"](0, 10);
  history.push({ role: "user", content: "Now review every module." });
  for (let i = 0; i < 20; i++) {
    history.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `big${i}`, toolName: "read", input: { path: `src/big${i}.rs` } }] });
    history.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `big${i}`, toolName: "read", output: { type: "text", value: read(i) } }] });
  }
  history.push({ role: "assistant", content: "Reviewed." });
  for (const [preset, snaps] of [["seed-000", true], ["pi", false]]) {
    const result = await new Compactor({ preset, contextWindow: 60_000, summarize: (r) => `SUMMARY(round ${r.round})`, keepRecentTokens: 2_500 }).compact(history, { force: true });
    const firstKept = result.messages.find((m, i) => i > 0 && history.includes(m));
    if (snaps) {
      assert.equal(result.splitTurn, false, preset);
      assert.equal(firstKept.role, "user", `${preset}: the kept tail starts at a user message`);
    } else {
      assert.equal(result.splitTurn, true, `${preset} splits the turn`);
    }
  }
});

// --- every preset, two compactions in a row, in every format ---

const PRESETS = {
  pi: [/## Goal and constraints/, /## Next steps/],
  "seed-000": [/CONTEXT CHECKPOINT COMPACTION/, /Absolute file paths/],
  codex: [/CONTEXT CHECKPOINT COMPACTION/, /clear next steps/],
  opencode: [/Summarize our conversation above/, /What was done/],
  "claude-code": [/1\. Primary Request and Intent/, /9\. Optional Next Step/, /6\. All user messages/],
  langchain: [/## Goal and constraints/],
  "anthropic-api": [/## Goal and constraints/],
  "seed-001": [/#### Original Task/, /#### Completed Work\n\| File\/Component/, /#### Key Technical Decisions/, /#### Current State/, /#### Pending Work\n- \[ \]/, /#### Errors & Resolutions/, /Maximum 800 tokens/],
  "seed-003": [/## Goal and constraints/],
  "seed-004": [/<context-compaction-input>\n<previous-summary>/, /<existing-workstream-state>/, /<new-messages>/, /KEY FACTS:/, /CONVERSATION FLOW:/, /OPEN THREADS:/],
};

for (const [preset, sections] of Object.entries(PRESETS)) {
  test(`${preset}: two compactions in a row in every format`, async () => {
    for (const format of FORMATS) {
      const where = `${preset}/${format}`;
      const options = { preset, contextWindow: 100_000, maxOutputTokens: 8_000, retryDelayMs: 1 };
      const one = recorder();
      const history = generators[format](0, 30);
      const first = await new Compactor({ ...options, summarize: one.summarize }).compact(history, { force: true });
      assert.equal(first.round, 1, where);
      assert.equal(countSummaries(first.messages), 1, where);
      // The second compaction by a fresh Compactor: everything it knows is in the messages.
      const two = recorder();
      const more = [...first.messages, ...generators[format](30, 30)];
      const second = await new Compactor({ ...options, summarize: two.summarize }).compact(more, { force: true });
      assert.equal(second.round, 2, `${where}: the round increments`);
      assert.equal(countSummaries(second.messages), 1, `${where}: one summary message`);
      // The first request of the second compaction builds on the first summary (later chunks
      // build on the chunk before them).
      const request = two.requests.find((r) => r.purpose !== "turn-prefix");
      assert.match(request.previousSummary ?? "", /SUMMARY\(round 1\)/, `${where}: the first summary is folded in`);
      for (const section of sections) assert.match(`${request.system}\n${request.prompt}`, section, `${where}: ${section}`);
      assert.deepEqual(validateMessages(second.messages, format), [], where);
      if (preset === "codex") assert.ok(second.warnings.some((w) => /multiple compactions/.test(w)), `${where}: Codex's warning`);
    }
  });
}
