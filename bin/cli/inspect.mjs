// inspect: what a session holds and what a compaction now would do, all numbers the package's own
// (Compactor.estimate, check and plan).
import { Compactor, estimateTokens, factRetention } from "context-compaction";
import { KIND_NAMES, loadInput, readInput, reportHead } from "./load.mjs";
import { compactorOptions, describeSettings } from "./settings.mjs";
import { change, fields, keptText, lostLines, num, plural, table } from "./text.mjs";

const KINDS = ["system", "text", "reasoning", "toolCalls", "toolResults", "images"];
const KIND_LABELS = { system: "system", text: "text", reasoning: "reasoning", toolCalls: "tool calls", toolResults: "tool results", images: "images" };

function withCompactor(options, fn) {
  const compactor = new Compactor(options);
  try {
    return fn(compactor);
  } finally {
    compactor.free();
  }
}

function tokensByKind(estimate) {
  return { total: estimate.total, ...Object.fromEntries(KINDS.map((k) => [k, estimate.byKind[k]])) };
}

/** The inspect report of a loaded input (see docs/cli.md for the fields). */
export function inspectInput(input, file, values) {
  const options = compactorOptions(values, input.format);
  const settings = describeSettings(values, options);
  const estimated = withCompactor({ ...options, tokenizer: "heuristic" }, (c) => tokensByKind(c.estimate(input.live)));
  const exact = withCompactor({ ...options, tokenizer: "o200k_base" }, (c) => tokensByKind(c.estimate(input.live)));
  const { check, plan } = withCompactor(options, (c) => ({ check: c.check(input.live), plan: c.plan(input.live) }));
  return {
    ...reportHead("inspect", file, input),
    messages: { raw: input.rawCount, live: input.live.length },
    compactions: input.compactions.map((c) => ({
      line: c.line,
      id: c.id,
      tokensBefore: c.tokensBefore,
      tokensAfter: c.tokensAfter,
      round: c.round,
      trigger: c.trigger,
      summaryChars: c.summary.length,
      summaryTokens: estimateTokens(c.summary),
      // What the recorded summary keeps of the facts of the messages it replaced.
      retention: c.replaced?.length ? factRetention(c.replaced, c.summary, input.format) : null,
    })),
    tokens: { estimated, exact },
    settings,
    trigger: { tokens: check.tokens, threshold: check.threshold, shouldCompact: check.shouldCompact, reason: check.reason },
    plan: {
      summarized: plan.summarize.length,
      turnPrefix: plan.turnPrefix.length,
      kept: plan.kept.length,
      pinned: plan.pinned.length,
      system: plan.system.length,
      dropped: plan.dropped.length,
      prunedParts: plan.pruned.length,
      truncatedParts: plan.truncated.length,
      previousSummary: plan.previousSummary,
      splitTurn: plan.splitTurn,
      escalations: plan.escalations.map((e) => e.step),
      tokensBefore: plan.tokensBefore,
      tokensAfter: plan.tokensAfter,
      noop: plan.noop,
      cost: plan.cost,
    },
  };
}

/** The inspect report of a file. */
export function inspectFile(file, values) {
  return inspectInput(loadInput(readInput(file), values.format), file, values);
}

/** The summary request's cost in each mode (docs/cost.md), in input-token equivalents. */
function costLine(c) {
  const mode = (m) => `~${num(m.inputEquivalents)} (${num(m.cacheRead)} read, ${num(m.cacheWrite)} written, ${num(m.fresh)} fresh)`;
  return `continue ${mode(c.continue)}, transcript ${mode(c.transcript)} input-token equivalents at ${c.provider}'s cache rules; output budget ${num(c.continue.outputTokens)}; ${c.mode} by default`;
}

/** The report as text. */
export function formatInspect(r) {
  const out = [];
  const s = r.settings;
  out.push(`${r.file}`);
  out.push(
    fields([
      ["format", `${KIND_NAMES[r.input.kind]}, ${r.input.format ?? "no"} messages`],
      ["messages", `${num(r.messages.raw)} in the file, ${num(r.messages.live)} live (what the agent would send now)`],
      ["compactions", r.compactions.length ? `${r.compactions.length} recorded` : "none recorded"],
    ]),
  );
  if (r.compactions.length) {
    out.push("");
    out.push(
      table([
        ["line", "tokens before", "round", "trigger", "summary chars", "summary tokens", "facts kept"],
        ...r.compactions.map((c) => [`${c.line ?? "-"}`, num(c.tokensBefore), num(c.round), c.trigger ?? "-", num(c.summaryChars), num(c.summaryTokens), keptText(c.retention)]),
      ]),
    );
    for (const c of r.compactions) {
      const lost = lostLines(c.retention);
      if (lost.length) out.push("", `lost by the summary at line ${c.line ?? "-"}:`, ...lost);
    }
  }
  out.push("");
  out.push("tokens of the live context by kind");
  const row = (k, label) => [label, num(r.tokens.estimated[k]), num(r.tokens.exact[k])];
  out.push(table([["", "estimated", "o200k_base"], ...KINDS.map((k) => row(k, KIND_LABELS[k])), row("total", "total")]));
  out.push("");
  const where = [`window ${num(s.contextWindow)}`, s.model && `model ${s.model}`, s.preset && `preset ${s.preset}`, s.tokenizer && `tokenizer ${s.tokenizer}`];
  out.push(`trigger (${where.filter(Boolean).join(", ")})`);
  const t = r.trigger;
  out.push(
    fields([
      ["tokens", `${num(t.tokens)}${t.threshold === null ? "" : ` of a threshold of ${num(t.threshold)}`}`],
      ["compact now", t.shouldCompact ? "yes" : "no"],
      ["reason", t.reason],
    ]),
  );
  out.push("");
  const p = r.plan;
  out.push("plan of a compaction now");
  if (p.noop) {
    out.push("  nothing to compact: every message stays");
  } else {
    out.push(
      fields([
        ["summarized", `${plural(p.summarized, "message")}${p.turnPrefix ? ` (+ ${num(p.turnPrefix)} of a split turn's start)` : ""}`],
        ["kept", `${plural(p.kept, "message")} verbatim${p.pinned ? `, ${num(p.pinned)} pinned` : ""}${p.system ? `, ${num(p.system)} system` : ""}`],
        ["pruned parts", num(p.prunedParts + p.truncatedParts)],
        ["dropped", num(p.dropped)],
        ["split turn", p.splitTurn ? "yes" : "no"],
        ["tokens", `${change(p.tokensBefore, p.tokensAfter)} (summaries at their budgets)`],
        ...(p.cost ? [["cost", costLine(p.cost)]] : []),
      ]),
    );
  }
  return out.join("\n");
}
