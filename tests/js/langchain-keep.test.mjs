// compactionMiddleware takes LangChain's summarizationMiddleware options with its meaning:
// `keep: { messages: N }` keeps the last N messages (the cut moved back only to keep an AI message
// with its tool messages), `keep: { tokens }` / `{ fraction }` the longest tail within the tokens,
// and `trigger` compares as LangChain does (`>=`, a fraction of the model profile's window). The
// proof runs `createAgent` over a real pi session and over small histories built to hit each rule.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { CompactionError, Compactor as PlainCompactor, convertMessages, importSession, validateMessages } from "context-compaction";
import { toBaseMessages } from "context-compaction/langchain";
import { fixtureText } from "./fixtures.mjs";

const { createAgent } = await import("langchain");
const { compactionMiddleware } = await import("context-compaction/langchain");

const SUMMARY = "SUMMARY OF EARLIER WORK";

/** A chat model for createAgent that records what each call was sent and answers "done". */
class RecordingModel extends BaseChatModel {
  constructor() {
    super({});
    this.calls = [];
  }
  _llmType() {
    return "recording";
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    this.calls.push(messages);
    return { generations: [{ message: new AIMessage("done"), text: "done" }] };
  }
}

/**
 * What the agent's model saw on its one call, and how many summaries it held. `profile`: that of
 * the middleware's summary model (LangChain reads the window there).
 */
async function runAgent(history, middlewareOptions, profile) {
  const model = new RecordingModel();
  const summaryModel = profile ? { model: { invoke: async () => new AIMessage(SUMMARY), profile } } : { summarize: () => SUMMARY };
  const agent = createAgent({ model, tools: [], middleware: [compactionMiddleware({ ...summaryModel, ...middlewareOptions })] });
  await agent.invoke({ messages: history });
  assert.equal(model.calls.length, 1);
  const seen = model.calls[0];
  return { seen, summaries: seen.filter((m) => typeof m.content === "string" && m.content.includes(SUMMARY)).length };
}

const text = (m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const isTool = (m) => m instanceof ToolMessage;

/** LangChain's summarizationMiddleware cut for `keep: { messages: n }`: back over tool messages to their AI message. */
function langChainCut(messages, n) {
  let cut = messages.length - n;
  while (cut > 0 && isTool(messages[cut])) cut--;
  return cut;
}

test("createAgent with keep: { messages: 20 } over a real session plus a new HumanMessage sends 20 messages and the summary", async () => {
  const file = importSession(fixtureText("pi/large-session.jsonl"), "pi");
  const history = [...toBaseMessages(convertMessages(file.messages, { to: "langchain" })), new HumanMessage("What next?")];
  assert.deepEqual(validateMessages(history), [], "the converted session is a valid history");
  const tokens = new PlainCompactor({ contextWindow: 10_000_000, summarize: "extractive" }).estimate(history).total;
  // A window whose 80% the session passes, as in the README's example.
  const maxInputTokens = Math.ceil(tokens / 0.85);
  const { seen, summaries } = await runAgent(history, { trigger: { fraction: 0.8 }, keep: { messages: 20 } }, { maxInputTokens });
  const cut = langChainCut(history, 20);
  assert.ok(history.length - cut >= 20);
  assert.equal(summaries, 1, "the summary is sent");
  assert.equal(seen.length, 1 + history.length - cut, `the model saw ${seen.length} messages`);
  assert.ok(seen.length >= 21, "at least 20 messages plus the summary");
  assert.ok(text(seen[0]).includes(SUMMARY), "the summary comes first");
  assert.deepEqual(seen.slice(1).map(text), history.slice(cut).map(text), "the last messages, as they were");
  assert.equal(text(seen.at(-1)), "What next?");
});

/** A small history: per round a question, an AI message with two tool calls, their results, an answer. */
function rounds(n, size = 200) {
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push(new HumanMessage(`question ${i} ${"q".repeat(size)}`));
    out.push(new AIMessage({ content: "", tool_calls: [{ id: `a${i}`, name: "ls", args: { i } }, { id: `b${i}`, name: "cat", args: { i } }] }));
    out.push(new ToolMessage({ content: `ls ${i} ${"l".repeat(size)}`, tool_call_id: `a${i}`, name: "ls" }));
    out.push(new ToolMessage({ content: `cat ${i} ${"c".repeat(size)}`, tool_call_id: `b${i}`, name: "cat" }));
    out.push(new AIMessage(`answer ${i} ${"a".repeat(size)}`));
  }
  return out;
}

test("keep: { messages } keeps exactly N when the cut falls on a user or AI message, and moves back only over tool messages", async () => {
  const history = rounds(12);
  for (const n of [5, 6, 7, 8, 9, 10]) {
    const { seen, summaries } = await runAgent(history, { contextWindow: 1_000_000, trigger: { messages: 40 }, keep: { messages: n } });
    const cut = langChainCut(history, n);
    assert.equal(summaries, 1);
    assert.deepEqual(seen.slice(1).map(text), history.slice(cut).map(text), `keep ${n}: the tail from ${cut}`);
    assert.equal(seen.length - 1, n + (history.length - n - cut), `keep ${n}`);
  }
  // The same with turnBoundary "snap" given: the tail starts at a question.
  const { seen } = await runAgent(history, { contextWindow: 1_000_000, trigger: { messages: 40 }, keep: { messages: 7 }, turnBoundary: "snap" });
  assert.ok(seen[1] instanceof HumanMessage);
});

test("keep: { tokens } keeps the longest tail within the tokens, moved back to the AI message of cut tool messages", async () => {
  const history = rounds(12);
  const counter = new PlainCompactor({ contextWindow: 1_000_000, summarize: "extractive" });
  const per = counter.estimate(history).perMessage;
  for (const budget of [300, 700, 1_000, 1_500, 2_200]) {
    // LangChain's rule on the package's counts: the earliest start whose tail fits, then back over tool messages.
    let start = history.length;
    let sum = 0;
    while (start > 0 && sum + per[start - 1] <= budget) sum += per[--start];
    start = Math.min(start, history.length - 1);
    while (start > 0 && isTool(history[start])) start--;
    const { seen } = await runAgent(history, { contextWindow: 1_000_000, trigger: { messages: 40 }, keep: { tokens: budget } });
    assert.deepEqual(seen.slice(1).map(text), history.slice(start).map(text), `keep ${budget} tokens: the tail from ${start}`);
  }
  // A fraction is of the model profile's maxInputTokens: 1,000 of 100,000.
  const { seen } = await runAgent(history, { trigger: { messages: 40 }, keep: { fraction: 0.01 } }, { maxInputTokens: 100_000 });
  const byTokens = await runAgent(history, { contextWindow: 100_000, trigger: { messages: 40 }, keep: { tokens: 1_000 } });
  assert.deepEqual(seen.map(text), byTokens.seen.map(text));
});

test("trigger compares as LangChain's: messages >= N, tokens >= N, fraction of the profile's window", async () => {
  const history = rounds(4); // 20 messages
  for (const [trigger, fires] of [
    [{ messages: 20 }, true],
    [{ messages: 21 }, false],
    [{ messages: 20, tokens: 1_000_000 }, false],
    [[{ messages: 99 }, { messages: 20 }], true],
  ]) {
    const { summaries } = await runAgent(history, { contextWindow: 1_000_000, trigger, keep: { messages: 5 }, summaryTokens: 100 });
    assert.equal(summaries, fires ? 1 : 0, JSON.stringify(trigger));
  }
  // (A summary budget that fits under the trigger: the package keeps the compacted context below it.)
  const tokens = new PlainCompactor({ contextWindow: 1_000_000, summarize: "extractive" }).estimate(history).total;
  // tokens >= floor(maxInputTokens × fraction): at the window where the fraction equals the tokens, it fires; one token more, not.
  const fires = await runAgent(history, { trigger: { fraction: 0.5 }, keep: { messages: 5 }, summaryTokens: 100 }, { maxInputTokens: tokens * 2 });
  assert.equal(fires.summaries, 1);
  const quiet = await runAgent(history, { trigger: { fraction: 0.5 }, keep: { messages: 5 }, summaryTokens: 100 }, { maxInputTokens: tokens * 2 + 2 });
  assert.equal(quiet.summaries, 0);
  const byTokens = await runAgent(history, { contextWindow: 1_000_000, trigger: { tokens }, keep: { messages: 5 }, summaryTokens: 100 });
  assert.equal(byTokens.summaries, 1);
});

test('a "provider:model" name: the window is the profile of the model initChatModel makes, read when a fraction needs it', async () => {
  // The adapter with an initChatModel that records its calls (no provider package is installed here).
  const { makeLangChain } = await import("../../js/langchain-adapter.mjs");
  const cc = await import("context-compaction");
  const lc = await import("@langchain/core/messages");
  const { createMiddleware } = await import("langchain");
  const { REMOVE_ALL_MESSAGES } = await import("@langchain/langgraph");
  const inits = [];
  const initChatModel = async (name) => {
    inits.push(name);
    return { invoke: async () => new AIMessage(SUMMARY), profile: { maxInputTokens: 100_000 } };
  };
  const api = makeLangChain(cc, lc, { createMiddleware, initChatModel, REMOVE_ALL_MESSAGES });
  const history = rounds(12);
  const run = async (options) => {
    const model = new RecordingModel();
    await createAgent({ model, tools: [], middleware: [api.compactionMiddleware(options)] }).invoke({ messages: history });
    return model.calls[0].map(text);
  };
  const byName = await run({ model: "openai:gpt-4o-mini", trigger: { messages: 40 }, keep: { fraction: 0.01 } });
  assert.deepEqual(inits, ["openai:gpt-4o-mini"], "initChatModel made the model once, for the window and the summary");
  const byWindow = await runAgent(history, { contextWindow: 100_000, trigger: { messages: 40 }, keep: { tokens: 1_000 } });
  assert.deepEqual(byName, byWindow.seen.map(text));
  // Without a fraction the window comes from the package's model table: no model is made to read it.
  inits.length = 0;
  api.compactionMiddleware({ model: "openai:gpt-4o-mini", trigger: { tokens: 1_000 }, keep: { messages: 5 } });
  assert.deepEqual(inits, []);
});

test("keep is checked as LangChain checks it", () => {
  const refused = (keep, path, extra = {}) =>
    assert.throws(
      () => compactionMiddleware({ contextWindow: 100_000, summarize: () => SUMMARY, keep, ...extra }),
      (e) => e instanceof CompactionError && e.code === "INVALID_OPTIONS" && e.path === path,
      JSON.stringify(keep),
    );
  refused({ messages: 5, tokens: 100 }, "keep");
  refused({}, "keep");
  refused({ turns: 3 }, "keep.turns");
  refused({ messages: -1 }, "keep.messages");
  refused({ fraction: 2 }, "keep.fraction");
  assert.throws(
    () => compactionMiddleware({ summarize: () => SUMMARY, model: { invoke: async () => ({ content: "" }) }, keep: { fraction: 0.5 } }),
    (e) => e instanceof CompactionError && e.code === "INVALID_OPTIONS" && e.path === "keep.fraction",
  );
});
