#!/usr/bin/env node
// context-compaction CLI: the token report of an agent session file (pi or Claude Code JSONL),
// by kind of content, estimated and exact.
//   context-compaction <session.jsonl> [--json]
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { countTokens, estimateTokens, CompactionError } from "context-compaction";

const KINDS = ["system", "text", "reasoning", "toolCalls", "toolResults", "images"];

/** Yields [kind, text] for every content block of every message line, pi or Claude Code. */
function* blocks(lines) {
  for (const line of lines) {
    const message = line.type === "message" ? line.message : line.message ?? undefined;
    if (!message || line.isSidechain) continue;
    const role = message.role;
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      switch (block.type) {
        case "text":
          yield [role === "system" ? "system" : role === "toolResult" ? "toolResults" : "text", block.text ?? ""];
          break;
        case "thinking":
        case "redacted_thinking":
          yield ["reasoning", block.thinking ?? block.data ?? ""];
          break;
        case "tool_use":
        case "toolCall":
          yield ["toolCalls", `${block.name} ${JSON.stringify(block.input ?? block.arguments ?? {})}`];
          break;
        case "tool_result":
          yield ["toolResults", typeof block.content === "string" ? block.content : JSON.stringify(block.content ?? "")];
          break;
        case "image":
          yield ["images", ""];
          break;
      }
    }
  }
}

function report(path) {
  const text = readFileSync(path, "utf8");
  const lines = [];
  text.split("\n").forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      lines.push(JSON.parse(raw));
    } catch {
      throw new CompactionError(`line ${i + 1} is not JSON`, "INVALID_INPUT", `line ${i + 1}`);
    }
  });
  const rows = Object.fromEntries(KINDS.map((k) => [k, { blocks: 0, chars: 0, estimate: 0, o200k: 0, cl100k: 0 }]));
  for (const [kind, body] of blocks(lines)) {
    const row = rows[kind];
    row.blocks += 1;
    row.chars += body.length;
    row.estimate += estimateTokens(body);
    row.o200k += countTokens(body, "o200k_base");
    row.cl100k += countTokens(body, "cl100k_base");
  }
  const total = { blocks: 0, chars: 0, estimate: 0, o200k: 0, cl100k: 0 };
  for (const row of Object.values(rows)) for (const k of Object.keys(total)) total[k] += row[k];
  return { file: basename(path), lines: lines.length, kinds: rows, total };
}

function print({ file, lines, kinds, total }) {
  const cols = ["kind", "blocks", "chars", "estimated", "o200k_base", "cl100k_base", "est/o200k"];
  const ratio = (r) => (r.o200k ? (r.estimate / r.o200k).toFixed(2) : "-");
  const table = [
    ...Object.entries(kinds).map(([k, r]) => [k, r.blocks, r.chars, r.estimate, r.o200k, r.cl100k, ratio(r)]),
    ["total", total.blocks, total.chars, total.estimate, total.o200k, total.cl100k, ratio(total)],
  ].map((row) => row.map(String));
  const widths = cols.map((c, i) => Math.max(c.length, ...table.map((r) => r[i].length)));
  const fmt = (row) => row.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join("  ");
  console.log(`${file}: ${lines} lines\n`);
  console.log(fmt(cols));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  table.forEach((row, i) => {
    if (i === table.length - 1) console.log(widths.map((w) => "-".repeat(w)).join("  "));
    console.log(fmt(row));
  });
}

const args = process.argv.slice(2);
const path = args.find((a) => !a.startsWith("--"));
if (!path || args.includes("--help")) {
  console.log("usage: context-compaction <session.jsonl> [--json]\n\nPrints the tokens of a pi or Claude Code session by kind, estimated and exact.");
  process.exit(path ? 0 : 2);
}
try {
  const result = report(path);
  if (args.includes("--json")) console.log(JSON.stringify(result, null, 2));
  else print(result);
} catch (error) {
  console.error(`context-compaction: ${error.code ? `${error.code}: ` : ""}${error.message}`);
  process.exit(1);
}
