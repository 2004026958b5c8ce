// The AI SDK middleware: one line of setup (`wrapLanguageModel({ model, middleware })`) and every
// `generateText` call's prompt is compacted, while the application keeps its whole history. Driven
// by the SDK's own mock model over the long real session; also binary content (images and files as
// `Uint8Array`, `ArrayBuffer`, `URL`) through the whole API, and the overflow retry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import {
  Compactor,
  compactionMiddleware,
  repairMessages,
  trimMessages,
  validateMessages,
} from "context-compaction";

import { promptViolations, summaryPlacement } from "./prompt-checks.mjs";
import { budget, compactorOptions, fakeSummarize, loadSession, newStats, replayedGenerate, toolNames } from "./replay.mjs";

globalThis.AI_SDK_LOG_WARNINGS = false;

const SYSTEM = "You are a coding agent working in the pi-mono repository. Use the tools.";
const usage = {
  inputTokens: { total: 1000, noCache: 1000, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 100, text: 100, reasoning: 0 },
};
const stop = { unified: "stop", raw: "end_turn" };

// A 1×1 PNG (its header gives the dimensions) followed by padding, so the bytes are not tiny.
const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0x03, 0x20, 0, 0, 0x02, 0x58, 8, 6,
  0, 0, 0, ...new Array(60_000).fill(7),
]);

test("middleware: an agent loop over the long real session, the application never compacts", async (t) => {
  const session = loadSession();
  const { turns } = session;
  const byId = new Map(turns.flatMap((turn) => turn.steps.flatMap((s) => s.calls.map((c) => [c.id, c]))));
  const stats = newStats();
  const problems = [];
  const measure = new Compactor({ ...compactorOptions, format: "ai-sdk", summarize: () => "unused" });
  const cursor = { turn: -1, step: 0 };
  const base = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      stats.requests += 1;
      for (const p of promptViolations(prompt)) problems.push(`request ${stats.requests}: ${p}`);
      const misplaced = summaryPlacement(prompt);
      if (misplaced) problems.push(`request ${stats.requests}: ${misplaced}`);
      if (prompt[0]?.role !== "system" || prompt[0].content !== SYSTEM) problems.push(`request ${stats.requests}: system prompt lost`);
      for (const [i, m] of prompt.entries()) {
        if (m.role !== "system" && !Array.isArray(m.content)) problems.push(`request ${stats.requests}: prompt[${i}] content is not parts`);
      }
      stats.maxTokens = Math.max(stats.maxTokens, measure.estimate(prompt).total);
      const turn = turns[cursor.turn];
      return replayedGenerate(turn, cursor, usage);
    },
  });
  const compactor = new Compactor({
    ...compactorOptions,
    summarize: fakeSummarize(stats),
    onAfterCompaction: () => {
      stats.afterEvents += 1;
    },
  });
  const model = wrapLanguageModel({ model: base, middleware: compactionMiddleware(compactor) });
  const tools = Object.fromEntries(
    toolNames(turns).map((name) => [
      name,
      tool({
        description: `Replayed ${name} tool`,
        inputSchema: jsonSchema({ type: "object", additionalProperties: true }),
        execute: async (_input, { toolCallId }) => {
          const call = byId.get(toolCallId);
          if (call.isError) throw new Error(call.output);
          return call.output;
        },
      }),
    ]),
  );

  let history = [];
  for (const [i, turn] of turns.entries()) {
    history = [...history, { role: "user", content: turn.user }];
    cursor.turn = i;
    cursor.step = 0;
    const result = await generateText({ model, system: SYSTEM, messages: history, tools, stopWhen: stepCountIs(turn.steps.length + 5) });
    assert.equal(result.text, turn.final, `turn ${i} ends with the model's answer`);
    history = [...history, ...result.response.messages];
  }

  const historyTokens = measure.estimate(history).total;
  t.diagnostic(
    `model calls ${stats.requests}, compactions ${stats.afterEvents}, summaries ${stats.summaries}, ` +
      `largest prompt ${stats.maxTokens} tokens; the application's history holds ${historyTokens}`,
  );
  assert.deepEqual(problems.slice(0, 10), [], `${problems.length} problems`);
  assert.equal(stats.requests, session.steps + turns.length, "every scripted step reached the model");
  assert.ok(historyTokens > 2 * budget, "the application's own history outgrew the window");
  assert.ok(stats.maxTokens <= budget, `every prompt fits the window (largest ${stats.maxTokens} tokens)`);
  assert.ok(stats.afterEvents >= 2, `compaction fired ${stats.afterEvents} times`);
  // The history grows by a step at a time: later calls continue from the last compaction instead of
  // summarizing the same messages again.
  assert.ok(stats.afterEvents * 4 < stats.requests, `${stats.afterEvents} compactions for ${stats.requests} calls`);
  assert.ok(stats.summaries <= 3 * stats.afterEvents, `${stats.summaries} summarizer calls`);
});

test("middleware: streamText, and a context-limit error is answered by a forced compaction and one retry", async () => {
  const prompts = [];
  let failures = 1;
  const overflow = Object.assign(new Error("prompt is too long: 250000 tokens > 200000 maximum"), {
    name: "AI_APICallError",
    statusCode: 400,
  });
  const base = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt);
      if (failures-- > 0) throw overflow;
      return { content: [{ type: "text", text: "ok" }], finishReason: stop, usage, warnings: [] };
    },
    doStream: async ({ prompt }) => {
      prompts.push(prompt);
      return {
        stream: new ReadableStream({
          start(c) {
            c.enqueue({ type: "text-start", id: "1" });
            c.enqueue({ type: "text-delta", id: "1", delta: "streamed" });
            c.enqueue({ type: "text-end", id: "1" });
            c.enqueue({ type: "finish", finishReason: stop, usage });
            c.close();
          },
        }),
      };
    },
  });
  let summaries = 0;
  const middleware = compactionMiddleware({
    contextWindow: 100_000,
    keepRecentTokens: 200,
    summarize: () => `summary ${++summaries}`,
  });
  const model = wrapLanguageModel({ model: base, middleware });
  const messages = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i} ${"x".repeat(400)}` }));
  messages.push({ role: "user", content: "and now?" });

  const result = await generateText({ model, messages });
  assert.equal(result.text, "ok");
  assert.equal(prompts.length, 2, "sent, refused, compacted, sent once more");
  assert.equal(prompts[0].length, messages.length, "the first attempt was under the trigger: sent whole");
  assert.ok(prompts[1].length < prompts[0].length, "the retry carries the compacted prompt");
  assert.equal(summaries, 1);
  assert.match(JSON.stringify(prompts[1]), /summary 1/);

  const streamed = streamText({ model, messages });
  assert.equal(await streamed.text, "streamed");
  assert.equal(prompts.length, 3);

  // Any other error is the provider's, untouched.
  const other = new MockLanguageModelV3({
    doGenerate: async () => {
      throw new Error("rate limited");
    },
  });
  await assert.rejects(generateText({ model: wrapLanguageModel({ model: other, middleware }), messages, maxRetries: 0 }), /rate limited/);
});

test("middleware: the provider's usage of each response calibrates the Compactor (generate and stream)", async () => {
  // A provider that counts 30% more than the package's plain estimate of what it is sent.
  const plain = new Compactor({ contextWindow: 1_000_000, selfCalibration: false, summarize: "extractive" });
  const usageOf = (prompt) => {
    const input = Math.round(plain.estimate(prompt).total * 1.3);
    return { inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 20, text: 20, reasoning: 0 } };
  };
  const STEPS = 8;
  const step = (prompt) => prompt.filter((m) => m.role === "assistant").length;
  const answer = (prompt) =>
    step(prompt) < STEPS
      ? [{ type: "tool-call", toolCallId: `read_${step(prompt)}`, toolName: "read", input: JSON.stringify({ path: `src/file_${step(prompt)}.ts` }) }]
      : [{ type: "text", text: "done" }];
  const base = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => ({ content: answer(prompt), finishReason: step(prompt) < STEPS ? { unified: "tool-calls", raw: "tool_use" } : stop, usage: usageOf(prompt), warnings: [] }),
    doStream: async ({ prompt }) => {
      const parts = answer(prompt);
      return {
        stream: new ReadableStream({
          start(c) {
            for (const p of parts) {
              if (p.type === "text") {
                c.enqueue({ type: "text-start", id: "t" });
                c.enqueue({ type: "text-delta", id: "t", delta: p.text });
                c.enqueue({ type: "text-end", id: "t" });
              } else c.enqueue(p);
            }
            c.enqueue({ type: "finish", finishReason: step(prompt) < STEPS ? { unified: "tool-calls", raw: "tool_use" } : stop, usage: usageOf(prompt) });
            c.close();
          },
        }),
      };
    },
  });
  const tools = {
    read: tool({
      inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } } }),
      execute: async ({ path }) => `${path}\n${"export const value = compute(input) * factor; // a line of the file\n".repeat(60)}`,
    }),
  };
  for (const mode of ["generate", "stream"]) {
    const compactor = new Compactor({ contextWindow: 1_000_000, summarize: "extractive" });
    const model = wrapLanguageModel({ model: base, middleware: compactionMiddleware(compactor) });
    const messages = [{ role: "user", content: "read the files one by one" }];
    const options = { model, messages, tools, stopWhen: stepCountIs(STEPS + 2) };
    const text = mode === "generate" ? (await generateText(options)).text : await streamText(options).text;
    assert.equal(text, "done", mode);
    const { calibration } = compactor.estimate([]);
    assert.ok(calibration.samples >= STEPS - 3, `${mode}: learned from ${calibration.samples} usages`);
    // Small turns move the factors slowly (docs/tokens.md): the direction is what one run shows.
    assert.ok(calibration.factors.toolResults > 1.03, `${mode}: the tool results' factor rose to ${calibration.factors.toolResults}`);
    assert.ok(calibration.factors.toolResults < 1.3, `${mode}: and not past the provider's ratio`);
  }
});

/** The messages as text, bytes by length and checksum (URLs serialize as their href). */
function snapshot(messages) {
  const sum = (bytes) => bytes.reduce((a, b) => (a * 31 + b) >>> 0, 0);
  return JSON.stringify(messages, (_key, v) => {
    if (ArrayBuffer.isView(v)) return `bytes ${v.byteLength} ${sum(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))}`;
    if (v instanceof ArrayBuffer) return `buffer ${v.byteLength} ${sum(new Uint8Array(v))}`;
    return v;
  });
}

test("binary content: Uint8Array, ArrayBuffer and URL images and files are priced as media and returned as they were", async () => {
  const buffer = PNG.buffer.slice(0);
  const url = new URL("https://example.com/cat.png");
  const pdf = new Uint8Array(30_000).fill(1);
  const messages = [
    { role: "system", content: "Be brief." },
    {
      role: "user",
      content: [
        { type: "text", text: "What is in these?" },
        { type: "image", image: PNG, mediaType: "image/png" },
        { type: "image", image: url },
        { type: "file", data: buffer, mediaType: "image/png" },
        { type: "file", data: pdf, mediaType: "application/pdf", filename: "spec.pdf" },
      ],
    },
    { role: "assistant", content: "A cat, twice, and a spec." },
    ...Array.from({ length: 10 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} ${"y".repeat(2000)}` })),
  ];
  const frozen = snapshot(messages);

  assert.deepEqual(validateMessages(messages), []);
  const counter = new Compactor({ contextWindow: 100_000, summarize: () => "unused" });
  const one = counter.estimate([{ role: "user", content: [{ type: "image", image: PNG, mediaType: "image/png" }] }]);
  // 800 × 600 read from the PNG header in the bytes: about 640 tokens, whatever the byte count.
  assert.ok(one.byKind.images > 600 && one.byKind.images < 700, `a PNG of 800×600 (${one.byKind.images} tokens)`);
  const estimate = counter.estimate(messages.slice(0, 2));
  assert.ok(estimate.byKind.images > 3 * 600, "every image (bytes, ArrayBuffer, URL) is priced as an image");
  const base64Length = Math.ceil(PNG.length / 3) * 4;
  assert.ok(estimate.total < base64Length / 4, `an image is not priced by its bytes (${estimate.total} tokens)`);

  const repaired = repairMessages(messages);
  assert.deepEqual(repaired.messages, messages, "a valid history comes back deep-equal");
  assert.equal(repaired.messages[1].content[1].image, PNG, "with the caller's own bytes");
  assert.equal(repaired.messages[1].content[2].image, url, "and the caller's URL object");
  assert.equal(repaired.messages[1].content[3].data, buffer);
  const trimmed = trimMessages(messages, { maxTokens: 100_000 });
  assert.equal(trimmed[1].content[1].image, PNG, "the bytes are the caller's own");

  const compactor = new Compactor({ contextWindow: 8_000, keepRecentTokens: 1_000, summarize: () => "the user showed a cat" });
  const result = await compactor.compact(messages);
  assert.ok(result.compacted);
  assert.ok(result.removed.includes(messages[1]), "removed messages are the caller's objects, binary and all");
  assert.equal(snapshot(messages), frozen, "the input is not changed");

  // A changed message (here: a tool result pruned) keeps the binary parts it did not change.
  const withTool = [
    { role: "user", content: "read it" },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a" } }] },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "read",
          output: { type: "text", value: "z".repeat(40_000) },
          providerOptions: { raw: { bytes: PNG } },
        },
      ],
    },
    { role: "user", content: [{ type: "image", image: PNG }, { type: "text", text: "and this" }] },
  ];
  const pruner = new Compactor({
    contextWindow: 100_000,
    prune: { style: "anthropic", keep: 0, clearAtLeast: 0 },
    summarize: () => "unused",
  });
  const pruned = pruner.prune(withTool);
  assert.notEqual(pruned[2], withTool[2], "the tool result was pruned (a changed message)");
  assert.doesNotMatch(JSON.stringify(pruned[2].content[0].output), /zzzz/);
  assert.equal(pruned[2].content[0].providerOptions.raw.bytes, PNG, "the changed message's binary field is the caller's");
  assert.equal(pruned[3], withTool[3], "the untouched message is the caller's object");
});

test("middleware options: a misspelt or mistyped option is INVALID_OPTIONS naming it", () => {
  const base = { contextWindow: 10_000, summarize: "extractive" };
  assert.throws(() => compactionMiddleware(base, { recoverOverfow: false }), (e) => e.code === "INVALID_OPTIONS" && e.path === "recoverOverfow");
  assert.throws(() => compactionMiddleware(base, { recoverOverflow: "no" }), (e) => e.code === "INVALID_OPTIONS" && e.path === "recoverOverflow");
  assert.throws(() => compactionMiddleware(base, null), (e) => e.code === "INVALID_OPTIONS");
  assert.equal(compactionMiddleware(base, { recoverOverflow: false }).specificationVersion, "v3");
});

test("middleware without a summarize: the wrapped model continues the conversation, its prefix as the last request sent it", async () => {
  const calls = [];
  const reply = (text) => ({ content: [{ type: "text", text }], finishReason: stop, usage, warnings: [] });
  const base = new MockLanguageModelV3({
    doGenerate: async (params) => {
      calls.push(params);
      const last = params.prompt.at(-1);
      const asked = last.role === "user" && last.content.some((p) => p.type === "text" && p.text.startsWith("Stop working on the task"));
      return reply(asked ? "SUMMARY: the user asked about files 0 to 39." : "ok");
    },
  });
  const model = wrapLanguageModel({ model: base, middleware: compactionMiddleware({ contextWindow: 8_000, reserveTokens: 3_000, summaryTokens: 1_000, keepRecentTokens: 500 }) });
  const tools = { read: tool({ description: "Read a file", inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } } }) }) };
  const messages = [];
  const ask = async (text) => {
    messages.push({ role: "user", content: text });
    const r = await generateText({ model, system: SYSTEM, tools, messages });
    messages.push({ role: "assistant", content: r.text });
  };
  let asks = 0;
  while (calls.length === asks && asks < 80) {
    await ask(`Tell me about file ${asks}: ${"details ".repeat(60)}`);
    asks += 1;
  }
  assert.ok(calls.length > asks, "a compaction happened");
  // The last call compacted: the summary request, then the call itself.
  const [previous, summaryCall, main] = calls.slice(-3);
  const sent = summaryCall.prompt;
  // The prefix is byte-identical to the previous request, and the call's tools go with it.
  assert.equal(JSON.stringify(sent.slice(0, previous.prompt.length)), JSON.stringify(previous.prompt));
  assert.equal(JSON.stringify(summaryCall.tools), JSON.stringify(previous.tools));
  assert.equal(sent[0].role, "system");
  // Then what came since (the answer and the new question), then the instruction.
  assert.equal(sent.length, previous.prompt.length + 3);
  assert.match(sent.at(-1).content[0].text, /^Stop working on the task/);
  assert.equal(summaryCall.maxOutputTokens > 0, true);
  assert.ok(main.prompt.length < sent.length - 1, "the call itself sent the compacted prompt");
  assert.match(JSON.stringify(main.prompt), /SUMMARY: the user asked about files/);
});

test("middleware with summarize and summaryMode transcript: the other model gets the transcript prompt", async () => {
  const requests = [];
  const base = new MockLanguageModelV3({
    doGenerate: async () => ({ content: [{ type: "text", text: "ok" }], finishReason: stop, usage, warnings: [] }),
  });
  const middleware = compactionMiddleware({
    contextWindow: 8_000,
    reserveTokens: 2_500,
    keepRecentTokens: 500,
    summaryMode: "transcript",
    summarize: (r) => (requests.push(r), "SUMMARY"),
  });
  const model = wrapLanguageModel({ model: base, middleware });
  const messages = Array.from({ length: 40 }, (_, k) => ({ role: k % 2 ? "assistant" : "user", content: `message ${k} ${"words ".repeat(300)}` }));
  messages.push({ role: "user", content: "go on" });
  await generateText({ model, system: SYSTEM, messages });
  assert.equal(requests.length, 1);
  assert.equal(requests[0].mode, "transcript");
  assert.equal(requests[0].conversation, undefined);
  assert.ok(requests[0].prompt.includes("message 0"));
});
