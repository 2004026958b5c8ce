// The summarizer example of docs/cost.md ("Request shape") runs as written: the same-model path
// continues the caller's conversation under the caller's system prompt and tools, with the
// instruction last; the other-model path sends the transcript prompt under the request's system.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Compactor, importSession } from "context-compaction";
import { root } from "./pack.mjs";
import { fixtureText } from "./fixtures.mjs";

const doc = readFileSync(join(root, "docs/cost.md"), "utf8");
const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => b.includes("const sameModel"));
const session = importSession(fixtureText("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"), "claude-code");
const before = session.history.slice(0, session.compactions[0].atMessage);
const options = { preset: "claude-code", contextWindow: 90_000, reserveTokens: 20_000 };

/** The example's summarizers, with the reader's model calls recorded. */
function example() {
  assert.equal(blocks.length, 1, "docs/cost.md has one summarizer example");
  const calls = [];
  const record = (which) => async (request) => (calls.push({ which, ...request }), "The work so far, in short.");
  const make = new Function("callModel", "callCheapModel", "mySystemPrompt", "myTools", `${blocks[0]}\nreturn { sameModel, otherModel };`);
  return { calls, ...make(record("model"), record("cheap"), "my system prompt", [{ name: "read" }]) };
}

test("docs/cost.md: the same model continues the conversation, with the instruction last", async () => {
  const { calls, sameModel } = example();
  const c = new Compactor({ ...options, summarize: sameModel });
  assert.ok((await c.maybeCompact(before)).length < before.length);
  c.free();
  assert.equal(calls.length, 1);
  const [sent] = calls;
  assert.equal(sent.which, "model");
  assert.equal(sent.system, "my system prompt");
  assert.deepEqual(sent.tools, [{ name: "read" }]);
  assert.equal(sent.messages.length, before.length + 1);
  assert.equal(sent.messages[0], before[0]);
  assert.equal(sent.messages.at(-1).role, "user");
  assert.match(sent.messages.at(-1).content, /^Stop working on the task/);
});

test("docs/cost.md: a different model gets the transcript prompt", async () => {
  const { calls, otherModel } = example();
  const c = new Compactor({ ...options, summaryMode: "transcript", summarize: otherModel });
  assert.ok((await c.maybeCompact(before)).length < before.length);
  c.free();
  assert.equal(calls.length, 1);
  const [sent] = calls;
  assert.equal(sent.which, "cheap");
  assert.notEqual(sent.system, "my system prompt");
  assert.equal(sent.messages.length, 1);
  assert.ok(sent.messages[0].content.length > 1_000);
});

/** A block of docs/cost.md without its imports, run with `names` given; returns `results`. */
function runBlock(marker, names, values, results) {
  const block = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes(marker));
  assert.ok(block, `docs/cost.md has the block with ${marker}`);
  const body = block.replace(/^import .*$/gm, "");
  return new Function(...names, `${body}\nreturn { ${results.join(", ")} };`)(...values);
}

test("docs/cost.md: the AI SDK middleware's two paths, the same model and a cheaper one", async () => {
  const { wrapLanguageModel, generateText } = await import("ai");
  const { MockLanguageModelV3 } = await import("ai/test");
  const { compactionMiddleware, Compactor: Plain } = await import("context-compaction");
  const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const calls = [];
  const provider = (modelId) =>
    new MockLanguageModelV3({
      modelId,
      doGenerate: async (params) => {
        calls.push({ modelId, params });
        return { content: [{ type: "text", text: "SUMMARY of the work" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
      },
    });
  const { withSameModel, withCheaperModel } = runBlock("withSameModel", ["wrapLanguageModel", "generateText", "compactionMiddleware", "provider"], [wrapLanguageModel, generateText, compactionMiddleware, provider], ["withSameModel", "withCheaperModel"]);
  // A history just past the trigger of claude-sonnet-4-5's window.
  const probe = new Plain({ model: "claude-sonnet-4-5", summarize: "extractive" });
  const messages = [];
  for (let i = 0; !probe.check(messages).shouldCompact; i += 1) {
    messages.push({ role: i % 2 ? "assistant" : "user", content: `part ${i}: ${"words of the task ".repeat(100)}` });
  }
  messages.push({ role: "user", content: "go on" });
  probe.free();
  await generateText({ model: withSameModel, messages });
  const [summary, call] = calls.splice(0);
  assert.equal(summary.modelId, "claude-sonnet-4-5");
  assert.equal(summary.params.prompt.length, messages.length + 1);
  assert.match(summary.params.prompt.at(-1).content[0].text, /^Stop working on the task/);
  assert.ok(call.params.prompt.length < messages.length);
  await generateText({ model: withCheaperModel, messages });
  const sent = calls.splice(0);
  const main = sent.pop();
  assert.equal(main.modelId, "claude-sonnet-4-5");
  assert.ok(sent.length >= 1 && sent.every((c) => c.modelId === "claude-haiku-4-5"));
  assert.equal(sent[0].params.prompt[0].role, "system");
  assert.match(sent[0].params.prompt[1].content[0].text, /part 0:/);
});

test("docs/cost.md: the LangChain middleware's two paths", async () => {
  const { compactionMiddleware } = await import("context-compaction/langchain");
  const made = [];
  const createAgent = (options) => (made.push(options), options);
  runBlock("cheaperAgent", ["createAgent", "compactionMiddleware", "model", "tools"], [createAgent, compactionMiddleware, {}, []], ["agent", "cheaperAgent"]);
  const [same, other] = made.map((o) => o.middleware[0]);
  // The same model compacts in the model call itself; another model before it, from a transcript.
  assert.equal(typeof same.wrapModelCall, "function");
  assert.equal(same.beforeModel, undefined);
  assert.equal(typeof other.beforeModel, "function");
});
