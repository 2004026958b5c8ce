// Formatting for the human-readable reports.

export const num = (n) => (n === null || n === undefined ? "-" : Number(n).toLocaleString("en-US"));

/** "1 message", "2,536 messages" */
export const plural = (n, word) => `${num(n)} ${word}${n === 1 ? "" : "s"}`;

/** "2,536 → 1,554 (−38.7%)" */
export function change(before, after) {
  if (!before) return `${num(before)} → ${num(after)}`;
  const pct = ((after - before) / before) * 100;
  const sign = pct > 0 ? "+" : pct < 0 ? "−" : "±";
  return `${num(before)} → ${num(after)} (${sign}${Math.abs(pct).toFixed(1)}%)`;
}

/** Rows of cells as aligned columns: the first left-aligned, the others right-aligned. */
export function table(rows, indent = "  ") {
  const cells = rows.map((r) => r.map(String));
  const widths = cells[0].map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells
    .map((r) => indent + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("   ").trimEnd())
    .join("\n");
}

/** "label   value" lines with the labels padded. */
export function fields(pairs, indent = "  ") {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${indent}${k.padEnd(width)}   ${v}`).join("\n");
}

const KIND_TITLES = { filesModified: "files modified", filesRead: "files read", commands: "commands", errors: "errors", userRequests: "user requests", pendingTasks: "pending tasks" };

/** `kept of total (percent)` of a fact-retention report, or `-`. */
export function keptText(retention) {
  if (!retention) return "-";
  return `${num(retention.kept)} of ${num(retention.total)} (${Math.round(retention.recall * 100)}%)`;
}

/** What a fact-retention report says was lost, as indented lines (at most `max` items per kind). */
export function lostLines(retention, max = 5) {
  if (!retention) return [];
  const out = [];
  for (const [kind, k] of Object.entries(retention.kinds)) {
    if (k.missing.length === 0) continue;
    out.push(`  ${KIND_TITLES[kind] ?? kind} (${k.missing.length} of ${k.total}):`);
    for (const item of k.missing.slice(0, max)) out.push(`    - ${item.length > 100 ? `${item.slice(0, 99)}…` : item}`);
    if (k.missing.length > max) out.push(`    … ${k.missing.length - max} more`);
  }
  return out;
}
