// trimMessages reads the caller's array on demand: it keeps what a whole conversion keeps
// (Compactor.trim converts every message), in every format and with every option; it detects the
// format from the whole array; it does not read (nor report) malformed messages it could not keep;
// and an array that is not plain data is converted whole, as before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, convertMessages, trimMessages, validateMessages } from "context-compaction";

/** A seeded AI SDK history with parallel calls, results far from their calls, orphans and reused ids. */
function variedHistory(seed, steps = 40) {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const m = [{ role: "system", content: "You are a careful agent." }];
  const result = (id, text) => ({ type: "tool-result", toolCallId: id, toolName: "read", output: { type: "text", value: text } });
  for (let s = 0; s < steps; s++) {
    m.push({ role: "user", content: [{ type: "text", text: `Step ${s}: look again. `.repeat(1 + Math.floor(rand() * 4)) }, { type: "text", text: "Thanks." }] });
    const calls = Math.floor(rand() * 3);
    // now and then an id used before (a duplicate), otherwise a fresh one
    const ids = Array.from({ length: calls }, (_, k) => (rand() < 0.1 && s > 2 ? `c${s - 2}_0` : `c${s}_${k}`));
    m.push({ role: "assistant", content: [{ type: "text", text: "Let me check. ".repeat(1 + Math.floor(rand() * 3)) }, ...ids.map((id) => ({ type: "tool-call", toolCallId: id, toolName: "read", input: { path: `src/${id}.rs` } }))] });
    if (ids.length > 0) m.push({ role: "tool", content: ids.map((id) => result(id, `fn ${id}() {}\n`.repeat(5 + Math.floor(rand() * 40)))) });
    if (rand() < 0.1) m.push({ role: "tool", content: [result(`ghost${s}`, "nobody asked")] });
    m.push({ role: "assistant", content: `Done with step ${s}.` });
  }
  return m;
}

const FORMATS = ["ai-sdk", "openai", "anthropic", "pi", "langchain"];
const OPTIONS = [
  {},
  { includeSystem: true, startOn: "user" },
  { allowPartial: true },
  { allowPartial: true, includeSystem: true, startOn: ["user", "tool"], endOn: ["assistant", "tool"] },
  { endOn: "user" },
  { strategy: "first" },
  { strategy: "first", allowPartial: true, endOn: "assistant" },
];

/** Kept messages are the caller's objects (or copies of a partial one), in order. */
function sameKept(got, expected, input, what) {
  assert.deepEqual(got, expected, what);
  got.forEach((m, i) => assert.equal(input.includes(m), input.includes(expected[i]), `${what}: message ${i} is the caller's`));
  got.forEach((m, i) => input.includes(m) && assert.equal(m, expected[i], `${what}: message ${i} is the same object`));
}

test("trimMessages keeps what the whole-array conversion keeps, in every format and with every option", () => {
  for (const seed of [1, 2, 3]) {
    const base = variedHistory(seed);
    for (const format of FORMATS) {
      const messages = format === "ai-sdk" ? base : convertMessages(base, { from: "ai-sdk", to: format });
      for (const tokenizer of ["heuristic", "o200k_base"]) {
        const whole = new Compactor({ contextWindow: 10_000_000, format, tokenizer, summarize: "extractive" });
        for (const options of OPTIONS) {
          for (const maxTokens of [0, 40, 300, 1_500, 6_000, 1_000_000]) {
            const o = { maxTokens, ...options };
            const what = `${format} ${tokenizer} seed ${seed} ${JSON.stringify(o)}`;
            const expected = whole.trim(messages, o);
            sameKept(trimMessages(messages, { ...o, format, tokenizer }), expected, messages, what);
            sameKept(trimMessages(messages, { ...o, tokenizer }), expected, messages, `${what}, format detected`);
          }
        }
        whole.free();
      }
    }
  }
});

test("a message trimMessages cannot keep is not read: a malformed one there is not reported", () => {
  const messages = variedHistory(4);
  const bad = [...messages];
  bad[1] = { role: "wizard", content: "not a message" };
  assert.throws(() => validateMessages(bad, "ai-sdk"), (e) => e.code === "INVALID_INPUT" && e.path === "messages[1].role");
  const small = { maxTokens: 300, format: "ai-sdk" };
  sameKept(trimMessages(bad, small), trimMessages(messages, small), bad, "the malformed message is far from the kept tail");
  sameKept(trimMessages(bad, { ...small, format: undefined }), trimMessages(messages, small), bad, "likewise with the format detected");
  // Reached by the budget, or by strategy "first", it is read and reported with its path.
  assert.throws(() => trimMessages(bad, { maxTokens: 1_000_000, format: "ai-sdk" }), (e) => e.code === "INVALID_INPUT" && e.path === "messages[1].role");
  assert.throws(() => trimMessages(bad, { maxTokens: 300, strategy: "first" }), (e) => e.code === "INVALID_INPUT" && e.path === "messages[1].role");
  // The system message held apart with includeSystem is read too.
  const badSystem = [{ role: "system", content: 42 }, ...messages.slice(1)];
  assert.throws(() => trimMessages(badSystem, { ...small, includeSystem: true }), (e) => e.code === "INVALID_INPUT" && e.path.startsWith("messages[0]"));
});

test("the format is detected from the whole array, with the same errors", () => {
  const messages = variedHistory(5);
  // an OpenAI field far from the kept tail makes the array ambiguous
  const mixed = [...messages];
  mixed[2] = { role: "assistant", content: "", tool_calls: [] };
  let expected;
  assert.throws(() => validateMessages(mixed), (e) => ((expected = e), e.code === "INVALID_INPUT"));
  assert.throws(
    () => trimMessages(mixed, { maxTokens: 300 }),
    (e) => e.code === expected.code && e.path === expected.path && e.message === expected.message,
  );
  // markers in messages of one shape: the first of them is named, as the whole array names it
  const repeated = [...messages];
  for (const at of [9, 5, 14]) repeated[at] = { role: "assistant", content: "", tool_calls: [] };
  repeated[7] = { role: "user", content: [{ type: "tool_result", tool_use_id: "x", content: "" }] };
  repeated[11] = { role: "user", content: [{ type: "tool_result", tool_use_id: "y", content: "" }] };
  assert.throws(() => validateMessages(repeated), (e) => ((expected = e), e.code === "INVALID_INPUT"));
  assert.match(expected.message, /messages\[5\]/);
  assert.throws(
    () => trimMessages(repeated, { maxTokens: 300 }),
    (e) => e.code === expected.code && e.path === expected.path && e.message === expected.message,
  );
  // a numeric timestamp anywhere (and no other marker) means pi
  const plain = [{ role: "user", content: "hi", timestamp: 1 }, ...Array.from({ length: 50 }, (_, i) => ({ role: i % 2 ? "user" : "assistant", content: `message ${i}` }))];
  assert.deepEqual(trimMessages(plain, { maxTokens: 20 }), trimMessages(plain, { maxTokens: 20, format: "pi" }));
});

test("an array that is not plain data where tool ids are read is converted whole; elsewhere a message is checked when read", () => {
  const messages = variedHistory(6);
  const whole = new Compactor({ contextWindow: 10_000_000, format: "ai-sdk", summarize: "extractive" });
  // a class instance deep in an early message: read as its fields, whichever way the array is read
  class Input {
    constructor() {
      this.path = "src/lib.rs";
    }
  }
  const withInstance = [...messages];
  withInstance[2] = { ...messages[2], content: messages[2].content.map((p) => (p.type === "tool-call" ? { ...p, input: new Input() } : p)) };
  for (const maxTokens of [300, 1_000_000]) {
    sameKept(trimMessages(withInstance, { maxTokens, format: "ai-sdk" }), whole.trim(withInstance, { maxTokens }), withInstance, `instance, ${maxTokens}`);
  }
  // a Map or a Set where tool ids are read (a block, a message's array) is read as plain data by
  // the whole conversion, so the array is converted whole
  const last = messages.length - 1;
  const toolAt = messages.findLastIndex((m) => m.role === "tool");
  const callAt = messages.findLastIndex((m, i) => i < toolAt && m.role === "assistant" && Array.isArray(m.content));
  const withMap = [...messages];
  const withSet = [...messages];
  for (const at of [callAt, toolAt]) {
    withMap[at] = { ...messages[at], content: messages[at].content.map((p) => new Map(Object.entries(p))) };
    withSet[at] = { ...messages[at], content: new Set(messages[at].content) };
  }
  for (const [what, input] of [["Map", withMap], ["Set", withSet]]) {
    for (const maxTokens of [300, 1_000_000]) {
      const expected = whole.trim(input, { maxTokens });
      assert.ok(expected.length > 0, `${what}: something is kept`);
      sameKept(trimMessages(input, { maxTokens, format: "ai-sdk" }), expected, input, `${what}, ${maxTokens}`);
    }
  }
  // a cycle in a message that is read is refused, with its path; one in a message that is never
  // read (dropped, and no tool partner of a kept one) is not looked at, like any other malformed
  // message there
  const cyclic = { role: "user", content: [] };
  cyclic.content.push({ type: "text", text: "loop", self: cyclic });
  const cycleLast = [...messages, cyclic];
  assert.throws(() => trimMessages(cycleLast, { maxTokens: 300, format: "ai-sdk" }), (e) => e.code === "INVALID_INPUT" && e.path.startsWith(`messages[${last + 1}]`));
  const cycleFirst = [messages[0], cyclic, ...messages.slice(1)];
  assert.deepEqual(trimMessages(cycleFirst, { maxTokens: 300, format: "ai-sdk" }), trimMessages(messages, { maxTokens: 300, format: "ai-sdk" }));
  assert.throws(() => trimMessages(cycleFirst, { maxTokens: 1_000_000, format: "ai-sdk" }), (e) => e.code === "INVALID_INPUT" && e.path.startsWith("messages[1]"));
  whole.free();
});

test("a partial message keeps the caller's binary data", () => {
  const image = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13]);
  const messages = [
    { role: "user", content: "Describe these." },
    { role: "user", content: [{ type: "text", text: "First a long note. ".repeat(200) }, { type: "image", image, mediaType: "image/png" }, { type: "text", text: "Short." }] },
    { role: "assistant", content: "A picture." },
  ];
  const whole = new Compactor({ contextWindow: 10_000_000, format: "ai-sdk", summarize: "extractive" });
  for (const maxTokens of [50, 200, 2_000, 4_000]) {
    const o = { maxTokens, allowPartial: true };
    const kept = trimMessages(messages, { ...o, format: "ai-sdk" });
    sameKept(kept, whole.trim(messages, o), messages, `partial at ${maxTokens}`);
    for (const m of kept) {
      const part = Array.isArray(m.content) ? m.content.find((p) => p.type === "image") : undefined;
      if (part) assert.equal(part.image, image, "the caller's bytes, not a copy");
    }
  }
  whole.free();
});

test("a kept message loses the tool results whose call is not kept, and keeps the rest", () => {
  // Anthropic: one user message answers a real call and a call that exists nowhere, and says more
  const messages = [
    { role: "user", content: "Read both files." },
    { role: "assistant", content: [{ type: "text", text: "Reading." }, { type: "tool_use", id: "t1", name: "read", input: { path: "a.rs" } }] },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: "fn a() {}" },
        { type: "tool_result", tool_use_id: "ghost", content: "nobody asked" },
        { type: "text", text: "And now the tests." },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "ghost2", content: "nobody asked either" }] },
    { role: "assistant", content: "Both read." },
  ];
  const whole = new Compactor({ contextWindow: 10_000_000, format: "anthropic", summarize: "extractive" });
  for (const maxTokens of [1_000, 1_000_000]) {
    const kept = trimMessages(messages, { maxTokens, format: "anthropic" });
    sameKept(kept, whole.trim(messages, { maxTokens }), messages, `at ${maxTokens}`);
    assert.deepEqual(validateMessages(kept, "anthropic"), [], "nothing orphaned");
    assert.equal(kept.length, 4, "the message of only an orphan result is dropped");
    assert.deepEqual(kept[2].content, [messages[2].content[0], messages[2].content[2]], "the carrier keeps its answer and its text");
    assert.equal(kept[2].role, "user");
    assert.equal(kept[1], messages[1], "untouched messages are the caller's objects");
  }
  // the caller's array is not changed
  assert.equal(messages[2].content.length, 3);
  whole.free();
});

test("a tool result before its call is never kept, though the call is (issue 23)", () => {
  const messages = [
    { role: "user", content: "q" },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "a1", toolName: "read", output: { type: "text", value: "early" } }] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "a1", toolName: "read", input: {} }] },
    { role: "user", content: "q2" },
  ];
  for (const strategy of ["last", "first"]) {
    const kept = trimMessages(messages, { maxTokens: 10_000, strategy });
    assert.deepEqual(kept, [messages[0], messages[2], messages[3]], strategy);
  }
});
