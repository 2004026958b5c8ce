// The replay of a real pi coding session as scripted agent turns, with no Node-only imports, so
// that the same replay runs in Node and in a browser bundle.

/**
 * @typedef {{ id: string, name: string, args: object, output: string, isError: boolean }} Call
 * @typedef {{ text: string, calls: Call[] }} Step
 * @typedef {{ user: string, steps: Step[], final: string }} Turn
 */
export function parseSession(text) {
  const messages = text
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === "message")
    .map((entry) => entry.message);
  const results = new Map();
  for (const m of messages) {
    if (m.role === "toolResult") {
      const output = m.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
      results.set(m.toolCallId, { output, isError: Boolean(m.isError) });
    }
  }
  const textOf = (content) =>
    typeof content === "string" ? content : content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
  const turns = [];
  let turn = null;
  let pendingText = [];
  const endTurn = () => {
    if (!turn) return;
    turn.final = pendingText.join("\n\n") || "Done.";
    turns.push(turn);
    pendingText = [];
  };
  let chars = 0;
  let calls = 0;
  for (const m of messages) {
    if (m.role === "user") {
      endTurn();
      turn = { user: textOf(m.content) || "(empty)", steps: [], final: "" };
      chars += turn.user.length;
    } else if (m.role === "assistant" && turn) {
      const text = textOf(m.content);
      const stepCalls = m.content
        .filter((b) => b.type === "toolCall")
        .map((b) => {
          // Calls of an aborted step have no recorded result: the replayed tool says so.
          const result = results.get(b.id) ?? { output: "Tool execution was aborted.", isError: true };
          chars += JSON.stringify(b.arguments).length + result.output.length;
          return { id: b.id, name: b.name, args: b.arguments ?? {}, ...result };
        });
      chars += text.length;
      if (stepCalls.length === 0) {
        if (text) pendingText.push(text);
        continue;
      }
      // Text said before more tool calls in the same turn goes with the next step.
      turn.steps.push({ text: [...pendingText, text].filter(Boolean).join("\n\n"), calls: stepCalls });
      pendingText = [];
      calls += stepCalls.length;
    }
  }
  endTurn();
  const steps = turns.reduce((n, t) => n + t.steps.length, 0);
  return { turns, chars, steps, calls };
}

/** The tool names the session uses. */
export function toolNames(turns) {
  return [...new Set(turns.flatMap((t) => t.steps.flatMap((s) => s.calls.map((c) => c.name))))].sort();
}

/**
 * A `LanguageModelV3` result replaying the recorded turn: its next step (text and tool calls),
 * then its final text. `cursor.step` advances.
 */
export function replayedGenerate(turn, cursor, usage) {
  if (cursor.step < turn.steps.length) {
    const step = turn.steps[cursor.step++];
    const content = [
      ...(step.text ? [{ type: "text", text: step.text }] : []),
      ...step.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args) })),
    ];
    return { content, finishReason: { unified: "tool-calls", raw: "tool_use" }, usage, warnings: [] };
  }
  cursor.step += 1;
  return { content: [{ type: "text", text: turn.final }], finishReason: { unified: "stop", raw: "end_turn" }, usage, warnings: [] };
}
