// Generated agent histories in the AI SDK, OpenAI and Anthropic formats, for the compaction tests.

/** `turns` turns of an AI SDK coding session: each reads a file (a large result) and answers. */
export function aiSdkHistory(turns = 30, { pinnedFirst = false } = {}) {
  const m = [{ role: "system", content: "You are a careful coding agent." }];
  for (let i = 0; i < turns; i++) {
    m.push({ role: "user", content: `Turn ${i}: fix the bug in src/mod${i}.rs, keep the API stable. `.repeat(6), ...(pinnedFirst && i === 0 ? { pinned: true } : {}) });
    m.push({ role: "assistant", content: [{ type: "text", text: "Reading it." }, { type: "tool-call", toolCallId: `c${i}`, toolName: "read", input: { path: `src/mod${i}.rs` } }], providerOptions: { note: { turn: i } } });
    m.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `c${i}`, toolName: "read", output: { type: "text", value: `pub fn f${i}() -> u32 { ${i} }\n`.repeat(120) } }] });
    m.push({ role: "assistant", content: `Fixed src/mod${i}.rs.` });
  }
  return m;
}

export function openAiHistory(turns = 30) {
  const m = [{ role: "system", content: "You are a careful coding agent." }];
  for (let i = 0; i < turns; i++) {
    m.push({ role: "user", content: `Turn ${i}: fix src/mod${i}.rs. `.repeat(8) });
    m.push({ role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read", arguments: JSON.stringify({ path: `src/mod${i}.rs` }) } }] });
    m.push({ role: "tool", tool_call_id: `call_${i}`, content: `pub fn f${i}() {}\n`.repeat(150) });
    m.push({ role: "assistant", content: `Fixed ${i}.` });
  }
  return m;
}

export function anthropicHistory(turns = 30) {
  const m = [];
  for (let i = 0; i < turns; i++) {
    m.push({ role: "user", content: [{ type: "text", text: `Turn ${i}: fix src/mod${i}.rs. `.repeat(8) }] });
    m.push({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "read", input: { path: `src/mod${i}.rs` } }] });
    m.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: `pub fn f${i}() {}\n`.repeat(150) }] });
    m.push({ role: "assistant", content: [{ type: "text", text: `Fixed ${i}.` }] });
  }
  return m;
}
