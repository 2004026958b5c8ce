// Deterministic coding-agent histories in AI SDK format: user requests, assistant text, multi-tool
// turns, source code and logs as tool outputs (a few over 100 KB), some CJK. Seeded, so every run
// measures the same messages.

/** mulberry32: a small seeded PRNG. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CODE = `export function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = out.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}
`;
const LOG = `2026-11-02T10:14:03.221Z INFO  server listening on 0.0.0.0:8080 (pid 48211)
2026-11-02T10:14:05.912Z WARN  pool: connection 7 idle for 30012ms, recycling
2026-11-02T10:14:06.004Z ERROR handler /api/v1/sessions: TypeError: Cannot read properties of undefined (reading 'id')
    at SessionStore.get (src/store.ts:88:21)
    at async handler (src/routes/sessions.ts:41:17)
`;
const PROSE = "The failing test expects the merged ranges to be sorted by their start, but the fixture passes overlapping ranges out of order. ";
const CJK = "该函数在合并区间之前先按起点排序，然后逐个合并重叠的区间。テストは境界条件を確認します。";

/** One agent step: an assistant message with tool calls and the tool message with their results. */
export function step(rand, n) {
  const calls = 1 + Math.floor(rand() * 3);
  const ids = Array.from({ length: calls }, (_, k) => `call_${n}_${k}`);
  const tools = ["read", "bash", "edit", "grep"];
  const assistant = {
    role: "assistant",
    content: [
      { type: "text", text: PROSE.repeat(1 + Math.floor(rand() * 2)) },
      ...ids.map((id, k) => ({ type: "tool-call", toolCallId: id, toolName: tools[(n + k) % 4], input: { path: `src/module_${(n * 7 + k) % 97}.ts`, command: `npm test -- --grep case_${n}` } })),
    ],
  };
  const big = rand() < 0.01;
  const tool = {
    role: "tool",
    content: ids.map((id, k) => {
      const r = rand();
      const body = big && k === 0 ? LOG.repeat(380) : r < 0.45 ? CODE.repeat(1 + Math.floor(rand() * 4)) : r < 0.85 ? LOG.repeat(1 + Math.floor(rand() * 5)) : CJK.repeat(2 + Math.floor(rand() * 6));
      return { type: "tool-result", toolCallId: id, toolName: tools[(n + k) % 4], output: { type: "text", value: body } };
    }),
  };
  return [assistant, tool];
}

/** A history of about `tokens` tokens (4 characters a token, roughly): turns of 1–6 steps. */
export function history(tokens, seed = 7) {
  const rand = prng(seed);
  const out = [];
  let chars = 0;
  let n = 0;
  while (chars < tokens * 4) {
    out.push({ role: "user", content: `Request ${n}: fix the failing case and run the tests again. ${rand() < 0.2 ? CJK : ""}` });
    const steps = 1 + Math.floor(rand() * 6);
    for (let s = 0; s < steps; s += 1) {
      const [a, t] = step(rand, n++);
      out.push(a, t);
      chars += JSON.stringify(a).length + JSON.stringify(t).length;
    }
    out.push({ role: "assistant", content: "Done: the ranges are merged after sorting and the tests pass." });
  }
  return out;
}

/** A token counter over message lists that counts each message object once (a `WeakMap` memo). */
export function memoCounter(count, text) {
  const memo = new WeakMap();
  return (messages) => {
    let n = 0;
    for (const m of messages) {
      let c = memo.get(m);
      if (c === undefined) memo.set(m, (c = count(text(m))));
      n += c;
    }
    return n;
  };
}

/** Every text of a message (for recounting with a JS tokenizer). */
export function textOf(m) {
  if (typeof m.content === "string") return m.content;
  return m.content
    .map((p) => (p.type === "text" ? p.text : p.type === "tool-call" ? `${p.toolName} ${JSON.stringify(p.input)}` : p.type === "tool-result" ? p.output.value : ""))
    .join("\n");
}
