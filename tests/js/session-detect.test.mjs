// A Session made without `format` (docs/session.md, "The message format"): plain text is taken as
// `ai-sdk` provisionally; the first append whose messages show the format decides it, the
// messages logged so far are read again under it, and the header names it. Once the header was
// given out (flush, toJSONL, a store's write), an append showing another format is refused with
// INVALID_INPUT at `messages[i]` and nothing changes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Session, memoryStore } from "../../js/node.mjs";
import { anthropicHistory } from "./history.mjs";

const plain = [
  { role: "user", content: "Fix the failing test in src/mod0.rs." },
  { role: "assistant", content: "Looking at it now." },
];
const options = { contextWindow: 100_000, summarize: () => "s" };
const header = (jsonl) => JSON.parse(jsonl.split("\n")[0]);

test("plain text, then Anthropic tool blocks: the session becomes an Anthropic session", async () => {
  const s = new Session(options);
  const told = new Session({ ...options, format: "anthropic" });
  const tools = anthropicHistory(2);
  for (const x of [s, told]) {
    x.append(plain);
    x.append(tools);
  }
  assert.equal(header(s.toJSONL()).format, "anthropic");
  // The same live context and counts as a session told the format.
  const [a, b] = [await s.render({ cacheControl: false }), await told.render({ cacheControl: false })];
  assert.deepEqual(a.messages, b.messages);
  assert.equal(a.tokens, b.tokens);
  assert.equal(a.format, "anthropic");
  assert.ok(JSON.stringify(a.messages).includes('"tool_use"'), "tool blocks are not raw JSON parts");
  // The log reads back as written.
  const again = Session.fromJSONL(s.toJSONL(), options);
  assert.equal(again.toJSONL(), s.toJSONL());
  assert.deepEqual((await again.render({ cacheControl: false })).messages, a.messages);
  for (const x of [s, told, again]) x.free();
});

test("plain text only stays ai-sdk; an AI SDK marker decides it without a change", () => {
  const s = new Session(options);
  s.append(plain);
  assert.equal(header(s.toJSONL()).format, "ai-sdk");
  s.append([{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "read", input: {} }] }]);
  assert.equal(header(s.toJSONL()).format, "ai-sdk");
  s.free();
});

for (const [how, giveOut] of [
  ["flush()", (s) => s.flush()],
  ["toJSONL()", (s) => s.toJSONL()],
]) {
  test(`after ${how}, an append showing another format is refused and nothing changes`, () => {
    const s = new Session(options);
    s.append(plain);
    giveOut(s);
    const before = s.toJSONL();
    const tools = anthropicHistory(1);
    assert.throws(
      () => s.append([plain[0], ...tools]),
      (e) => e.code === "INVALID_INPUT" && e.path === "messages[2]" && /pass `format`/.test(e.message),
    );
    assert.equal(s.toJSONL(), before, "nothing changed");
    assert.equal(s.entries().length, 2);
    // Plain text still appends.
    s.append(plain);
    assert.equal(s.entries().length, 4);
    s.free();
  });
}

test("after a store's write, another format is refused too", async () => {
  const store = memoryStore();
  const s = await Session.open(store, "c", options);
  s.append(plain);
  await s.commit();
  assert.throws(() => s.append(anthropicHistory(1)), (e) => e.code === "INVALID_INPUT" && e.path === "messages[1]");
  s.free();
});
