// Every TypeScript block of the README type-checks against the packed package, installed into a
// fresh project. Token counting and trimming run as they are; both AI SDK quick starts (prepareStep
// and the middleware) run there with the SDK's mock model over a history past the window.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MockLanguageModelV3 } from "ai/test";
import { root, consumerWith } from "./pack.mjs";

const blocks = [...readFileSync(join(root, "README.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);

let consumer;
const blockFile = (marker) => {
  const i = blocks.findIndex((b) => b.includes(marker));
  assert.ok(i >= 0, `the README has the block with ${marker}`);
  return pathToFileURL(join(consumer, `block${i}.mjs`)).href;
};

test("README TypeScript blocks compile with tsc, and the quick starts run", () => {
  assert.ok(blocks.length >= 4, `README has ${blocks.length} ts blocks`);
  // A consumer project with the packed package installed, as a user would have it.
  const dir = consumerWith("readme");
  consumer = dir;
  const files = blocks.map((code, i) => {
    const file = join(dir, `block${i}.mts`);
    writeFileSync(file, code.includes("export ") || code.includes("import ") ? code : `${code}\nexport {};\n`);
    return file;
  });
  const tsc = join(root, "node_modules/.bin/tsc");
  execFileSync(tsc, ["--strict", "--module", "nodenext", "--target", "es2022", "--types", "node", "--skipLibCheck", "--outDir", dir, ...files], { stdio: "inherit" });
  const run = (i) => execFileSync(process.execPath, [join(dir, `block${i}.mjs`)], { encoding: "utf8", env: { ...process.env, TOKENIZER: "" } });
  const counting = blocks.findIndex((b) => b.includes('console.log("estimate:"'));
  assert.ok(counting >= 0, "the token-counting quick start is in the README");
  const lines = run(counting).trim().split("\n");
  assert.match(lines[0], /^estimate: \d+$/);
  assert.match(lines[1], /^o200k_base: \d+$/);
  assert.match(lines[2], /^cl100k_base: \d+$/);
  assert.equal(lines[3], "INVALID_INPUT encoding");
  const trimming = blocks.findIndex((b) => b.includes("console.log(kept.length)"));
  assert.equal(run(trimming).trim(), "4");
});

// About 240,000 tokens of conversation with tool calls: past a 200,000-token window.
function longHistory() {
  const messages = [];
  for (let i = 0; i < 80; i++) {
    const words = Array.from({ length: 2_400 }, (_, k) => `w${i}_${k % 97}`).join(" ");
    messages.push({ role: "user", content: [{ type: "text", text: `Request ${i}: ${words}` }] });
    messages.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "read", input: { path: `f${i}.ts` } }] });
    messages.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `c${i}`, toolName: "read", output: { type: "text", value: `file ${i}` } }] });
    messages.push({ role: "assistant", content: [{ type: "text", text: `Answer ${i}` }] });
  }
  return messages;
}

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const answer = (text) => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });
const texts = (prompt) => prompt.flatMap((m) => (typeof m.content === "string" ? [m.content] : m.content.map((p) => p.text ?? ""))).join("\n");

test("README: the prepareStep quick start compacts an AI SDK run past the window", async () => {
  assert.ok(consumer, "the packed consumer project exists");
  const { runAgent } = await import(blockFile("export async function runAgent"));
  const prompts = [];
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt);
      // The summarizer's calls carry the summary request's system prompt; the agent's step does not.
      return answer(prompt[0]?.role === "system" ? "SUMMARY-OF-EARLIER-WORK" : "done");
    },
  });
  const history = longHistory();
  const result = await runAgent(model, {}, history);
  assert.equal(result.text, "done");
  assert.ok(prompts.length >= 2, "the summarizer ran, then the step");
  assert.ok(prompts.slice(0, -1).every((p) => p[0].role === "system"), "every call before the step is the summarizer's");
  const step = prompts.at(-1);
  assert.notEqual(step[0].role, "system");
  assert.ok(step.length < history.length / 2, `the step saw ${step.length} of ${history.length} messages`);
  assert.match(texts(step), /SUMMARY-OF-EARLIER-WORK/);
  assert.match(texts(step), /Request 79:/, "the recent tail is kept");
  assert.equal(history.length, 320, "the caller's array is not mutated");
});

test("README: the same-model middleware summarizes with the wrapped model itself", async () => {
  assert.ok(consumer, "the packed consumer project exists");
  const { withSameModelCompaction, ask } = await import(blockFile("export function withSameModelCompaction"));
  const prompts = [];
  // A summary request: the conversation then the instruction, or (past the window) the transcript
  // under the summarizer's system prompt; the application's own call has no system message.
  const isSummary = (prompt) => prompt[0].role === "system" || /^Stop working on the task/.test(prompt.at(-1).content[0]?.text ?? "");
  const base = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt);
      return answer(isSummary(prompt) ? "SUMMARY-BY-THE-SAME-MODEL" : "done");
    },
  });
  const history = longHistory();
  const result = await ask(withSameModelCompaction(base), history);
  assert.equal(result.text, "done");
  assert.ok(prompts.slice(0, -1).length >= 1 && prompts.slice(0, -1).every(isSummary));
  assert.ok(prompts.at(-1).length < history.length / 2);
  assert.match(texts(prompts.at(-1)), /SUMMARY-BY-THE-SAME-MODEL/);
});

test("README: the middleware quick start compacts every call's prompt", async () => {
  assert.ok(consumer, "the packed consumer project exists");
  const { withCompaction, ask } = await import(blockFile("export function withCompaction"));
  const prompts = [];
  const base = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt);
      return answer("done");
    },
  });
  const summarizer = new MockLanguageModelV3({ doGenerate: async () => answer("SUMMARY-OF-EARLIER-WORK") });
  const history = longHistory();
  const result = await ask(withCompaction(base, summarizer), history);
  assert.equal(result.text, "done");
  assert.equal(prompts.length, 1);
  assert.ok(prompts[0].length < history.length / 2, `the provider saw ${prompts[0].length} of ${history.length} messages`);
  assert.match(texts(prompts[0]), /SUMMARY-OF-EARLIER-WORK/);
});
