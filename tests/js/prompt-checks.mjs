// Checks of what an AI SDK model receives, shared by the AI SDK loop tests: tool pairing in the
// provider prompt, where the summary sits, and the SDK's own message schema.
import { modelMessageSchema } from "ai";

import { SUMMARY_MARK } from "./replay.mjs";

export { promptViolations } from "./prompt-pairs.mjs";

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

