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
