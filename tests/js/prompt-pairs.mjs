// Tool pairing in a provider prompt (AI SDK messages), with no Node-only imports: the Node tests
// and the browser app of the Session loop check prompts with the same code.

/** Orphaned results, results of an earlier turn, calls left unanswered: each as a sentence. */
export function promptViolations(prompt) {
  const problems = [];
  let calls = null; // the tool calls of the nearest assistant message, while tool messages follow it
  let open = new Set();
  prompt.forEach((m, i) => {
    if (m.role === "system" && i > 0) problems.push(`prompt[${i}]: system message after the start`);
    if (m.role === "assistant") {
      if (open.size) problems.push(`prompt[${i}]: assistant message before the results of ${[...open]}`);
      calls = new Set(m.content.filter((p) => p.type === "tool-call").map((p) => p.toolCallId));
      open = new Set(calls);
    } else if (m.role === "tool") {
      for (const p of m.content) {
        if (p.type !== "tool-result") continue;
        if (!calls?.has(p.toolCallId)) problems.push(`prompt[${i}]: orphaned tool result ${p.toolCallId}`);
        else if (!open.delete(p.toolCallId)) problems.push(`prompt[${i}]: second result for ${p.toolCallId}`);
      }
    } else {
      if (open.size) problems.push(`prompt[${i}]: ${m.role} message before the results of ${[...open]}`);
      calls = null;
      open = new Set();
    }
  });
  if (open.size) problems.push(`end of prompt: unanswered calls ${[...open]}`);
  return problems;
}
