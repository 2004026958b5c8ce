// Checks of what an AI SDK model receives, shared by the AI SDK loop tests: tool pairing in the
// provider prompt, where the summary sits, and the SDK's own message schema.
import { modelMessageSchema } from "ai";

import { SUMMARY_MARK } from "./replay.mjs";

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

export const textOf = (m) =>
  typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("");

/** The summary message, when there is one, comes first after the system message and only once. */
export function summaryPlacement(prompt) {
  const at = prompt.flatMap((m, i) => (m.role !== "tool" && textOf(m).includes(SUMMARY_MARK) ? [i] : []));
  if (at.length > 1) return `summary in ${at.length} messages (${at})`;
  if (at.length === 1 && at[0] !== 1) return `summary at prompt[${at[0]}], not first after the system message`;
  return null;
}

export function schemaErrors(messages, where) {
  const errors = [];
  messages.forEach((m, i) => {
    const parsed = modelMessageSchema.safeParse(m);
    if (!parsed.success) errors.push(`${where}[${i}] (${m.role}): ${parsed.error.issues[0]?.message}`);
  });
  return errors;
}

