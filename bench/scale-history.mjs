// The history of the scale benchmark (bench/scale.mjs) and of its structural test
// (tests/js/scale.test.mjs): AI SDK messages of a few tokens each.

/** `n` AI SDK messages of a few tokens: user and assistant turns, every fourth turn a tool call. */
export function history(n) {
  const out = [];
  for (let i = 0; out.length < n; i++) {
    out.push({ role: "user", content: `q${i}` });
    if (i % 4 === 3) {
      out.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "ls", input: {} }] });
      out.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `c${i}`, toolName: "ls", output: { type: "text", value: "ok" } }] });
    }
    out.push({ role: "assistant", content: `a${i}` });
  }
  return out.slice(0, n);
}
