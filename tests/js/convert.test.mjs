// convertMessages: what importSession reads feeds an AI SDK loop without a hand-written converter,
// and messages move between the provider formats with their tool pairs and media.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, modelMessageSchema } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { CompactionError, Compactor, convertMessages, importSession, repairMessages, validateMessages } from "context-compaction";

import { fixtureText } from "./fixtures.mjs";

const stop = { unified: "stop", raw: "stop" };
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

for (const [kind, file] of [
  ["pi", "pi/large-session.jsonl"],
  ["claude-code", "claude-code/tool_heavy.jsonl"],
]) {
  test(`a ${kind} session, imported and converted, is a valid AI SDK history the SDK sends`, async () => {
    const session = importSession(fixtureText(file), kind);
    const messages = convertMessages(session.history, { to: "ai-sdk" });
    assert.ok(messages.length > 10);
    for (const [i, m] of messages.entries()) {
      const parsed = modelMessageSchema.safeParse(m);
      assert.ok(parsed.success, `messages[${i}] (${m.role}): ${parsed.error?.issues[0]?.message}`);
    }
    assert.deepEqual(validateMessages(messages, "ai-sdk").filter((v) => v.kind !== "unanswered-call"), []);
    const calls = (ms, key) => ms.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === key).length;
    const sourceKind = session.format === "pi" ? "toolCall" : "tool_use";
    assert.equal(calls(messages, "tool-call"), calls(session.history, sourceKind), "every call of the file is kept");
    assert.ok(calls(messages, "tool-call") > 0 && calls(messages, "tool-result") > 0);

    // Calls the agent left interrupted (the pi session has some) are answered by repairMessages;
    // then the SDK takes the history as it is.
    const repaired = repairMessages(messages, "ai-sdk");
    assert.ok(repaired.actions.every((a) => a.action === "added-results"), JSON.stringify(repaired.actions.slice(0, 3)));
    assert.deepEqual(validateMessages(repaired.messages, "ai-sdk"), []);
    let seen;
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        seen = prompt;
        return { content: [{ type: "text", text: "ok" }], finishReason: stop, usage, warnings: [] };
      },
    });
    const answered = repaired.messages;
    const compactor = new Compactor({ contextWindow: 1_000_000, summarize: "extractive" });
    const result = await generateText({ model, messages: await compactor.maybeCompact(answered) });
    assert.equal(result.text, "ok");
    assert.equal(calls(seen, "tool-call"), calls(answered, "tool-call"), "every call reached the model");
    assert.equal(calls(seen, "tool-result"), calls(answered, "tool-result"), "with its result");

    // And into the other provider formats.
    for (const to of ["openai", "anthropic", "pi"]) {
      const out = convertMessages(messages, { to });
      assert.deepEqual(validateMessages(out, to).filter((v) => v.kind !== "unanswered-call"), [], to);
    }
  });
}

test("binary content converts to inline data, a URL to its address", () => {
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  const out = convertMessages(
    [
      {
        role: "user",
        content: [
          { type: "image", image: png, mediaType: "image/png" },
          { type: "image", image: new URL("https://example.com/a.png") },
        ],
      },
    ],
    { to: "anthropic" },
  );
  assert.deepEqual(out[0].content[0], {
    type: "image",
    source: { type: "base64", media_type: "image/png", data: Buffer.from(png).toString("base64") },
  });
  assert.deepEqual(out[0].content[1], { type: "image", source: { type: "url", url: "https://example.com/a.png" } });
});

test("a tool result's image goes to OpenAI as a user message after the tool messages (tool messages take text only)", () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString("base64");
  const anthropic = [
    { role: "user", content: "screenshot both pages" },
    {
      role: "assistant",
      content: [
        { type: "tool_use", id: "s1", name: "screenshot", input: { page: 1 } },
        { type: "tool_use", id: "s2", name: "screenshot", input: { page: 2 } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "s1", content: [{ type: "text", text: "page 1" }, { type: "image", source: { type: "base64", media_type: "image/png", data: png } }] },
        { type: "tool_result", tool_use_id: "s2", content: "page 2 failed to load" },
      ],
    },
  ];
  const openai = convertMessages(anthropic, { to: "openai" });
  assert.deepEqual(
    openai.slice(2).map((m) => [m.role, typeof m.content]),
    [
      ["tool", "string"],
      ["tool", "string"],
      ["user", "object"],
    ],
  );
  assert.match(openai[2].content, /^page 1\n\[1 attachment\(s\) of this result follow/);
  assert.equal(openai[3].content, "page 2 failed to load");
  assert.deepEqual(openai[4].content, [
    { type: "text", text: "Attachments of tool result s1:" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
  ]);
  assert.deepEqual(validateMessages(openai), []);
});

test("the same format is the identity; bad options are typed errors", () => {
  const messages = [{ role: "user", content: "hi", extra: 1 }];
  assert.deepEqual(convertMessages(messages, { to: "ai-sdk" }), messages);
  for (const [options, path] of [
    [{}, "options.to"],
    [{ to: "langchain-ish" }, "options.to"],
    [{ to: "pi", form: "openai" }, "form"],
    [{ to: 3 }, "options.to"],
  ]) {
    assert.throws(() => convertMessages(messages, options), (e) => e instanceof CompactionError && e.code === "INVALID_OPTIONS" && e.path === path, JSON.stringify(options));
  }
  assert.throws(() => convertMessages("nope", { to: "pi" }), (e) => e instanceof CompactionError && e.code === "INVALID_INPUT");
});
