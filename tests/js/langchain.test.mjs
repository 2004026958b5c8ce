// LangChain.js: `BaseMessage` objects (and their serialized form) are a format the package detects,
// and `context-compaction/langchain` gives real messages back. The proof is an agent loop with the
// real @langchain/core (a scripted chat model on LangChain's own BaseChatModel, `invoke` with its
// message coercion) over the long real session, compacting before every model call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, isBaseMessage } from "@langchain/core/messages";
import { CompactionError, Compactor as PlainCompactor, Session, convertMessages, validateMessages } from "context-compaction";
import { Compactor, toBaseMessages, trimMessages } from "context-compaction/langchain";

import { SUMMARY_MARK, budget, compactorOptions, fakeSummarize, loadSession, newStats } from "./replay.mjs";

const SYSTEM = "You are a coding agent working in the pi-mono repository. Use the tools.";

/** A chat model on LangChain's own base class that answers from a script and records its inputs. */
class ScriptedChatModel extends BaseChatModel {
  constructor(next, seen) {
    super({});
    this.next = next;
    this.seen = seen;
  }
  _llmType() {
    return "scripted";
  }
  async _generate(messages) {
    this.seen(messages);
    const message = this.next();
    return { generations: [{ message, text: typeof message.content === "string" ? message.content : "" }] };
  }
}

/** The recorded session's next answer: the current turn's next step (text and tool calls), then its final text. */
function replayedAnswer(session, cursor) {
  const turn = session.turns[cursor.turn];
  if (cursor.step < turn.steps.length) {
    const step = turn.steps[cursor.step++];
    return new AIMessage({ content: step.text ?? "", tool_calls: step.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })) });
  }
  cursor.step += 1;
  return new AIMessage(turn.final);
}

test("LangChain agent loop over the long real session: BaseMessages in and out, every call valid and within the window", async (t) => {
  const session = loadSession();
  const stats = newStats();
  const problems = [];
  const measure = new PlainCompactor({ ...compactorOptions, summarize: () => "unused" });
  const cursor = { turn: 0, step: 0 };
  const model = new ScriptedChatModel(
    () => replayedAnswer(session, cursor),
    (messages) => {
      stats.requests += 1;
      if (!messages.every(isBaseMessage)) problems.push(`call ${stats.requests}: not BaseMessages`);
      for (const v of validateMessages(messages)) problems.push(`call ${stats.requests}: ${v.kind} at ${v.path}`);
      if (!(messages[0] instanceof SystemMessage) || messages[0].content !== SYSTEM) problems.push(`call ${stats.requests}: system prompt lost`);
      stats.maxTokens = Math.max(stats.maxTokens, measure.estimate(messages).total);
    },
  );
  const compactor = new Compactor({
    ...compactorOptions,
    summarize: fakeSummarize(stats),
    onAfterCompaction: () => {
      stats.afterEvents += 1;
    },
  });

  let history = [new SystemMessage(SYSTEM)];
  let summaries = 0;
  for (const [i, turn] of session.turns.entries()) {
    cursor.turn = i;
    cursor.step = 0;
    history.push(new HumanMessage(turn.user));
    for (;;) {
      const before = history;
      history = await compactor.maybeCompact(history);
      if (history !== before) {
        // Kept messages are the caller's objects; the summary is a real message.
        const summary = history.find((m) => typeof m.content === "string" && m.content.includes(SUMMARY_MARK));
        if (!(summary instanceof HumanMessage || summary instanceof SystemMessage)) problems.push(`turn ${i}: summary is ${summary?.constructor.name}`);
        if (history.at(-1) !== before.at(-1)) problems.push(`turn ${i}: the last message is not the caller's object`);
        summaries += 1;
      }
      const reply = await model.invoke(history);
      history.push(reply);
      if (!reply.tool_calls?.length) break;
      for (const call of reply.tool_calls) {
        const step = turn.steps[cursor.step - 1];
        const recorded = step.calls.find((c) => c.id === call.id);
        history.push(new ToolMessage({ content: recorded.output, tool_call_id: call.id, name: call.name, status: recorded.isError ? "error" : "success" }));
      }
    }
    assert.equal(history.at(-1).content, turn.final, `turn ${i} ends with the model's answer`);
  }
  t.diagnostic(`model calls ${stats.requests}, compactions ${stats.afterEvents}, summaries ${stats.summaries}, largest input ${stats.maxTokens} tokens`);
  assert.deepEqual(problems.slice(0, 10), [], `${problems.length} problems`);
  assert.equal(stats.requests, session.steps + session.turns.length);
  assert.ok(stats.afterEvents >= 2 && summaries === stats.afterEvents, `${stats.afterEvents} compactions`);
  assert.ok(stats.maxTokens <= budget, `every call fits the window (largest ${stats.maxTokens} tokens)`);
});

test("serialized LangChain messages are detected by the main entry and keep their form", async () => {
  const messages = [new SystemMessage("be brief")];
  for (let i = 0; i < 20; i++) {
    messages.push(new HumanMessage(`question ${i} ${"x".repeat(300)}`));
    messages.push(new AIMessage({ content: "", tool_calls: [{ id: `c${i}`, name: "ls", args: { i } }] }));
    messages.push(new ToolMessage({ content: "y".repeat(800), tool_call_id: `c${i}` }));
    messages.push(new AIMessage(`answer ${i}`));
  }
  const serialized = JSON.parse(JSON.stringify(messages));
  assert.equal(serialized[1].lc, 1);
  assert.deepEqual(validateMessages(serialized), []);
  const compactor = new PlainCompactor({ contextWindow: 8_000, keepRecentTokens: 1_000, summarize: () => "what happened" });
  const result = await compactor.compact(serialized);
  assert.ok(result.compacted);
  assert.equal(result.messages.at(-1), serialized.at(-1), "kept messages are the caller's objects");
  const summary = result.messages.find((m) => typeof m.content === "string" && m.content.includes("what happened"));
  assert.equal(summary.type, "human", "a new message is in LangChain's plain form");
  const revived = toBaseMessages(result.messages);
  assert.ok(revived.every(isBaseMessage));
  assert.ok(revived.find((m) => m.content === summary.content) instanceof HumanMessage);
  assert.deepEqual(validateMessages(revived), []);
});

test("trimMessages takes LangChain's options and refuses a counting function clearly", () => {
  const messages = [
    new SystemMessage("You are terse."),
    new HumanMessage("Summarize chapter one."),
    new AIMessage({ content: "", tool_calls: [{ id: "t1", name: "read", args: { ch: 1 } }] }),
    new ToolMessage({ content: "chapter one text ".repeat(50), tool_call_id: "t1" }),
    new AIMessage("Done: chapter one is about..."),
    new HumanMessage("And chapter two?"),
  ];
  const kept = trimMessages(messages, { maxTokens: 60, strategy: "last", startOn: "human", includeSystem: true, tokenCounter: "o200k_base" });
  assert.deepEqual(kept.map((m) => m.getType()), ["system", "human"]);
  assert.equal(kept[0], messages[0]);
  const all = trimMessages(messages, { maxTokens: 10_000 });
  assert.deepEqual(all, messages);
  // The same trim on a Compactor's identity cache: the same BaseMessage objects.
  const compactor = new Compactor({ contextWindow: 10_000, tokenizer: "o200k_base", summarize: "extractive" });
  const cached = compactor.trim(messages, { maxTokens: 60, strategy: "last", startOn: "human", includeSystem: true });
  assert.equal(cached.length, kept.length);
  cached.forEach((m, i) => assert.equal(m, kept[i]));
  assert.deepEqual(compactor.trim(messages, { maxTokens: 10_000 }), messages);
  for (const tokenCounter of [(ms) => ms.length, { getNumTokens: () => 1 }]) {
    assert.throws(
      () => trimMessages(messages, { maxTokens: 100, tokenCounter }),
      (e) => e instanceof CompactionError && e.code === "INVALID_OPTIONS" && e.path === "tokenCounter" && !/JsValue/.test(e.message),
    );
  }
});

test("convertMessages writes LangChain messages, and reads them", () => {
  const openai = [
    { role: "system", content: "be brief" },
    { role: "user", content: "list" },
    { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "ls", arguments: "{\"d\":1}" } }] },
    { role: "tool", tool_call_id: "c", content: "a b" },
  ];
  const plain = convertMessages(openai, { to: "langchain" });
  const messages = toBaseMessages(plain);
  assert.deepEqual(messages.map((m) => m.constructor.name), ["SystemMessage", "HumanMessage", "AIMessage", "ToolMessage"]);
  assert.deepEqual(messages[2].tool_calls[0], { id: "c", name: "ls", args: { d: 1 }, type: "tool_call" });
  assert.equal(messages[3].name, "ls", "the tool message is named after its call");
  assert.deepEqual(convertMessages(messages, { to: "openai" })[2].tool_calls, openai[2].tool_calls);
});

test("createAgent with compactionMiddleware over the long real session: every model call valid and within the window", async (t) => {
  const { createAgent, tool } = await import("langchain");
  const { z } = await import("zod");
  const { compactionMiddleware } = await import("context-compaction/langchain");
  const session = loadSession();
  const byId = new Map(session.turns.flatMap((turn) => turn.steps.flatMap((s) => s.calls.map((c) => [c.id, c]))));
  const stats = newStats();
  const problems = [];
  const measure = new PlainCompactor({ ...compactorOptions, summarize: () => "unused" });
  const cursor = { turn: 0, step: 0 };
  class AgentModel extends ScriptedChatModel {
    bindTools() {
      return this;
    }
  }
  const model = new AgentModel(
    () => replayedAnswer(session, cursor),
    (messages) => {
      stats.requests += 1;
      for (const v of validateMessages(messages)) problems.push(`call ${stats.requests}: ${v.kind} at ${v.path}`);
      stats.maxTokens = Math.max(stats.maxTokens, measure.estimate(messages).total);
    },
  );
  const names = [...new Set([...byId.values()].map((c) => c.name))];
  const tools = names.map((name) =>
    tool(
      async (_args, config) => {
        const call = byId.get(config.toolCall.id);
        return call.output;
      },
      { name, description: `Replayed ${name} tool`, schema: z.object({}).passthrough() },
    ),
  );
  const agent = createAgent({
    model,
    tools,
    systemPrompt: SYSTEM,
    middleware: [
      compactionMiddleware({
        contextWindow: compactorOptions.contextWindow,
        reserveTokens: compactorOptions.reserveTokens,
        trigger: { fraction: 0.8 },
        keep: { tokens: compactorOptions.keepRecentTokens },
        summarize: fakeSummarize(stats),
        onAfterCompaction: () => {
          stats.afterEvents += 1;
        },
      }),
    ],
  });
  let messages = [];
  for (const [i, turn] of session.turns.entries()) {
    cursor.turn = i;
    cursor.step = 0;
    const state = await agent.invoke({ messages: [...messages, new HumanMessage(turn.user)] }, { recursionLimit: 1000 });
    messages = state.messages;
    assert.equal(messages.at(-1).content, turn.final, `turn ${i} ends with the model's answer`);
  }
  t.diagnostic(`agent model calls ${stats.requests}, compactions ${stats.afterEvents}, largest input ${stats.maxTokens} tokens`);
  assert.deepEqual(problems.slice(0, 10), [], `${problems.length} problems`);
  assert.equal(stats.requests, session.steps + session.turns.length);
  assert.ok(stats.afterEvents >= 2, `${stats.afterEvents} compactions`);
  assert.ok(stats.maxTokens <= budget, `every call fits the window (largest ${stats.maxTokens} tokens)`);
  assert.ok(messages.some((m) => m instanceof HumanMessage && m.content.includes(SUMMARY_MARK)), "the agent's state carries the summary");
});

test('format "langchain" is an option value of Compactor and Session, not only detected', () => {
  const messages = [new SystemMessage("Be brief."), new HumanMessage("hello"), new AIMessage("hi")];
  const compactor = new PlainCompactor({ contextWindow: 10_000, format: "langchain", summarize: "extractive" });
  assert.equal(compactor.estimate(messages).perMessage.length, 3);
  const session = new Session({ contextWindow: 10_000, format: "langchain", summarize: "extractive" });
  for (const m of messages) session.append(m);
  assert.equal(session.render().format, "langchain");
  assert.throws(() => new PlainCompactor({ contextWindow: 10_000, format: "langchain-js", summarize: "extractive" }), (e) => e instanceof CompactionError && e.code === "INVALID_OPTIONS" && e.path === "format");
});

test("compactionMiddleware without model or summarize: the agent's own model continues the conversation", async () => {
  const { createAgent, tool } = await import("langchain");
  const { z } = await import("zod");
  const { compactionMiddleware } = await import("context-compaction/langchain");
  const calls = [];
  const tools = [];
  class AgentModel extends ScriptedChatModel {
    bindTools(given) {
      tools.push(given);
      return this;
    }
  }
  const asked = (messages) => {
    const last = messages.at(-1);
    return last instanceof HumanMessage && String(last.content).startsWith("Stop working on the task");
  };
  const model = new AgentModel(
    () => new AIMessage(asked(calls.at(-1)) ? "SUMMARY: files 0 to 39 were discussed." : "ok"),
    (messages) => calls.push(messages),
  );
  const read = tool(async () => "contents", { name: "read", description: "Read a file", schema: z.object({ path: z.string() }) });
  const agent = createAgent({
    model,
    tools: [read],
    systemPrompt: SYSTEM,
    middleware: [compactionMiddleware({ contextWindow: 8_000, reserveTokens: 3_000, summaryTokens: 1_000, keepRecentTokens: 500 })],
  });
  let messages = [];
  let asks = 0;
  while (calls.length === asks && asks < 80) {
    const state = await agent.invoke({ messages: [...messages, new HumanMessage(`Tell me about file ${asks}: ${"details ".repeat(60)}`)] });
    messages = state.messages;
    asks += 1;
  }
  assert.ok(calls.length > asks, "a compaction happened");
  const [previous, summaryCall, main] = calls.slice(-3);
  // The summary request is the model call itself: the prefix the model saw last, byte for byte,
  // under the agent's system prompt, then the answer and question since, then the instruction.
  assert.ok(previous[0] instanceof SystemMessage && JSON.stringify(previous[0].content).includes(SYSTEM));
  assert.equal(JSON.stringify(summaryCall.slice(0, previous.length)), JSON.stringify(previous));
  assert.equal(summaryCall.length, previous.length + 3);
  assert.ok(asked(summaryCall));
  // The call itself sent the compacted messages, with the summary; the agent's state keeps all.
  assert.ok(main.length < summaryCall.length - 1);
  assert.match(JSON.stringify(main.map((m) => m.content)), /SUMMARY: files 0 to 39/);
  assert.equal(messages.length, asks * 2);
});
