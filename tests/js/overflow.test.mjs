// Context-limit errors as applications see them (a plain Error with a status, the AI SDK's
// APICallError, nested provider bodies) and withOverflowRecovery: compact once, retry once, never
// loop, leave other errors alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { APICallError } from "ai";
import { describeContextOverflow, isContextOverflowError, withOverflowRecovery, Compactor } from "context-compaction";

const cases = JSON.parse(readFileSync(new URL("../data/overflow/cases.json", import.meta.url), "utf8"));

/** The case's error as a thrown Error object (message and name are not enumerable). */
function asError(body) {
  if (Array.isArray(body) || typeof body !== "object") return body;
  const e = new Error(body.message ?? "request failed");
  for (const [k, v] of Object.entries(body)) if (k !== "message") e[k] = v;
  if (body.name) Object.defineProperty(e, "name", { value: body.name });
  return e;
}

test("every collected provider error is recognised as its case says, as a thrown Error", () => {
  for (const c of cases) {
    const error = asError(c.error);
    assert.equal(isContextOverflowError(error), c.expected.overflow, c.name);
    const d = describeContextOverflow(error);
    if (!c.expected.overflow) assert.equal(d, null, c.name);
    else assert.deepEqual(d, { provider: c.expected.provider, limit: c.expected.limit, requested: c.expected.requested }, c.name);
  }
});

test("the AI SDK's own APICallError wrapping OpenAI and Anthropic bodies", () => {
  const openai = new APICallError({
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
    url: "https://api.openai.com/v1/chat/completions",
    requestBodyValues: {},
    statusCode: 400,
    responseBody: JSON.stringify({ error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } }),
    isRetryable: false,
  });
  assert.deepEqual(describeContextOverflow(openai), { provider: "openai", limit: 128000, requested: 130532 });
  const anthropic = new APICallError({
    message: "prompt is too long: 210000 tokens > 200000 maximum",
    url: "https://api.anthropic.com/v1/messages",
    requestBodyValues: {},
    statusCode: 400,
    responseBody: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}',
  });
  assert.deepEqual(describeContextOverflow(anthropic), { provider: "anthropic", limit: 200000, requested: 210000 });
  const rateLimited = new APICallError({ message: "Rate limit reached", url: "x", requestBodyValues: {}, statusCode: 429 });
  assert.equal(isContextOverflowError(rateLimited), false);
  // Odd values never throw.
  for (const v of [undefined, null, 42, "prompt is too long: 5 tokens > 4 maximum", Symbol("x"), () => 1]) isContextOverflowError(v);
  assert.equal(isContextOverflowError("prompt is too long: 5 tokens > 4 maximum"), true);
  const hostile = new Proxy({}, { get() { throw new Error("no"); } });
  assert.equal(isContextOverflowError(hostile), false);
  const cyclic = { message: "fine" };
  cyclic.cause = cyclic;
  assert.equal(isContextOverflowError(cyclic), false);
});

const overflow = () => Object.assign(new Error("prompt is too long: 210000 tokens > 200000 maximum"), { status: 400 });

test("withOverflowRecovery compacts once and retries once", async () => {
  const sent = [];
  let compacted = 0;
  const result = await withOverflowRecovery(
    async (m) => {
      sent.push(m);
      if (sent.length === 1) throw overflow();
      return `ok with ${m.length}`;
    },
    ["a", "b", "c"],
    async (m, error) => {
      compacted += 1;
      assert.ok(isContextOverflowError(error));
      return m.slice(-1);
    },
  );
  assert.equal(result, "ok with 1");
  assert.equal(compacted, 1);
  assert.deepEqual(sent, [["a", "b", "c"], ["c"]]);
});

test("withOverflowRecovery never loops and leaves other errors alone", async () => {
  let sends = 0;
  let compactions = 0;
  const second = overflow();
  await assert.rejects(
    withOverflowRecovery(
      async () => {
        sends += 1;
        throw sends === 1 ? overflow() : second;
      },
      [1],
      (m) => ((compactions += 1), m),
    ),
    (e) => e === second,
  );
  assert.equal(sends, 2);
  assert.equal(compactions, 1);
  const other = new Error("invalid x-api-key");
  compactions = 0;
  await assert.rejects(withOverflowRecovery(() => { throw other; }, [1], () => ((compactions += 1), [])), (e) => e === other);
  assert.equal(compactions, 0);
});

test("with a Compactor: a forced compaction after the provider's overflow error", async () => {
  const compactor = new Compactor({ contextWindow: 4_000, reserveTokens: 500, keepRecentTokens: 600, summarize: () => "summary of the early work" });
  const history = [];
  for (let i = 0; i < 12; i += 1) history.push({ role: "user", content: `request ${i} ${"detail ".repeat(60)}` }, { role: "assistant", content: `answer ${i}` });
  let calls = 0;
  const result = await withOverflowRecovery(
    async (messages) => {
      calls += 1;
      if (messages.length === history.length) throw overflow();
      return messages;
    },
    history,
    async (messages) => (await compactor.compact(messages, { force: true })).messages,
  );
  assert.equal(calls, 2);
  assert.ok(result.length < history.length);
  assert.match(JSON.stringify(result[0]), /summary of the early work/);
});
