// The package against the libraries users would otherwise copy or call for the same job, on the
// same generated histories: pi's compaction functions (estimateTokens, findCutPoint,
// prepareCompaction, buildSessionContext), LangChain's trimMessages (a chars/4 counter and an exact
// counter memoized per message) and the AI SDK's pruneMessages.
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Compactor, Session, convertMessages, trimMessages } from "../js/node.mjs";
import { countTokens as gptCount } from "gpt-tokenizer/encoding/o200k_base";
import { AIMessage, HumanMessage, ToolMessage, trimMessages as lcTrim } from "@langchain/core/messages";
import { pruneMessages } from "ai";
import { memoCounter } from "./workload.mjs";

// pi-coding-agent's package exports only its index; its compaction module is imported by path
// (the functions are the ones the index re-exports, plus prepareCompaction, which it does not).
const piDist = (path) => fileURLToPath(new URL(`./node_modules/@mariozechner/pi-coding-agent/dist/${path}`, import.meta.url));
const pi = await import(piDist("core/compaction/compaction.js"));
const piSession = await import(piDist("core/session-manager.js"));

/** Median, p10 and p90 of `samples` (milliseconds). */
export function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p10: at(0.1), p90: at(0.9) };
}

/**
 * Times `f` after one warm-up call: `runs` times, and on until `SPAN` ms have passed since the
 * first (at most `MAX_SAMPLES`; each sample after a full GC). On this shared machine speed drifts
 * in phases of a fraction of a second; a few fast samples would fall in one phase, while a slow
 * peer's few samples span seconds. Spreading the fast ones over a comparable stretch keeps the
 * ratios comparable.
 */
const SPAN = 1_000;
const MAX_SAMPLES = 100;
export function time(f, runs) {
  f();
  const samples = [];
  const start = performance.now();
  for (let i = 0; i < runs || (performance.now() - start < SPAN && i < MAX_SAMPLES); i++) {
    globalThis.gc?.();
    const t0 = performance.now();
    f();
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

/** pi session entries (version 3) holding `messages` (pi messages), each the child of the one before. */
function piEntries(messages) {
  let parentId = null;
  return messages.map((message, i) => {
    const id = `e${i.toString(16).padStart(8, "0")}`;
    const entry = { type: "message", id, parentId, timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(), message };
    parentId = id;
    return entry;
  });
}

/** The AI SDK history as LangChain messages. */
function langChainMessages(messages) {
  const out = [];
  for (const m of messages) {
    if (m.role === "user") out.push(new HumanMessage(typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join("")));
    else if (m.role === "assistant") {
      if (typeof m.content === "string") out.push(new AIMessage(m.content));
      else {
        const text = m.content.filter((p) => p.type === "text").map((p) => p.text).join("");
        const toolCalls = m.content.filter((p) => p.type === "tool-call").map((p) => ({ id: p.toolCallId, name: p.toolName, args: p.input, type: "tool_call" }));
        out.push(new AIMessage({ content: text, tool_calls: toolCalls }));
      }
    } else if (m.role === "tool") {
      for (const r of m.content) out.push(new ToolMessage({ content: r.output.value, tool_call_id: r.toolCallId }));
    }
  }
  return out;
}

const lcText = (m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)) + (m.tool_calls?.length ? JSON.stringify(m.tool_calls) : "");

/** Whether a trimmed LangChain list keeps a tool message whose call it dropped. */
function lcOrphans(kept) {
  const calls = new Set(kept.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
  return kept.filter((m) => m.tool_call_id !== undefined && !calls.has(m.tool_call_id)).length;
}

/** Whether an AI SDK list keeps a tool result whose call it dropped. */
function aiOrphans(kept) {
  const calls = new Set(kept.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((p) => p.type === "tool-call").map((p) => p.toolCallId) : [])));
  return kept.flatMap((m) => (m.role === "tool" ? m.content.filter((p) => !calls.has(p.toolCallId)) : [])).length;
}

/**
 * Every peer measure on one history (AI SDK messages of about `size` tokens). `runs` per measure,
 * fewer for the slow ones.
 */
export async function peers(messages, { runs = 15, slowRuns = 5 } = {}) {
  const row = {};
  const piMessages = convertMessages(messages, { from: "ai-sdk", to: "pi" });
  const entries = piEntries(piMessages);
  const settings = { ...pi.DEFAULT_COMPACTION_SETTINGS, enabled: true };
  const keepRecentTokens = settings.keepRecentTokens;

  // Estimating the history: pi's chars/4 per message against the package's content-aware estimate
  // (a fresh Compactor converts every message; a warm one only walks its identity cache).
  row.piEstimate = time(() => piMessages.reduce((n, m) => n + pi.estimateTokens(m), 0), runs);
  const warm = new Compactor({ contextWindow: 2_000_000, preset: "pi", format: "ai-sdk", summarize: "extractive" });
  row.ccEstimateWarm = time(() => warm.estimate(messages).total, runs);
  row.ccEstimateFresh = time(() => {
    const c = new Compactor({ contextWindow: 2_000_000, preset: "pi", format: "ai-sdk", summarize: "extractive" });
    const n = c.estimate(messages).total;
    c.free();
    return n;
  }, slowRuns);

  // Choosing the cut: pi's findCutPoint and prepareCompaction against the package's plan (pi
  // preset, the same keepRecentTokens), warm and fresh.
  row.piFindCut = time(() => pi.findCutPoint(entries, 0, entries.length, keepRecentTokens), runs);
  row.piPrepare = time(() => pi.prepareCompaction(entries, settings), runs);
  row.ccPlanWarm = time(() => warm.plan(messages), runs);
  row.ccPlanFresh = time(() => {
    const c = new Compactor({ contextWindow: 2_000_000, preset: "pi", format: "ai-sdk", summarize: "extractive" });
    const p = c.plan(messages);
    c.free();
    return p;
  }, slowRuns);

  // The context to send: pi's buildSessionContext over its entries against Session.render.
  row.piContext = time(() => piSession.buildSessionContext(entries), runs);
  const session = new Session({ contextWindow: 2_000_000, preset: "pi", format: "ai-sdk", summarize: "extractive" });
  session.append(messages);
  row.ccRender = time(() => session.render({ cacheControl: false }), runs);
  session.free();

  // Trimming to a budget: LangChain's trimMessages (chars/4, and exact o200k memoized per message)
  // against the package's trimMessages (heuristic; o200k; heuristic with the format detected).
  const maxTokens = 100_000;
  const lc = langChainMessages(messages);
  const quarter = (msgs) => msgs.reduce((n, m) => n + Math.ceil(lcText(m).length / 4), 0);
  const exact = memoCounter(gptCount, lcText);
  let lcKept = [];
  row.lcTrimQuarter = await timeAsync(async () => (lcKept = await lcTrim(lc, { maxTokens, tokenCounter: quarter, strategy: "last" })), slowRuns);
  row.lcTrimQuarterOrphans = lcOrphans(lcKept);
  row.lcTrimExact = await timeAsync(async () => (lcKept = await lcTrim(lc, { maxTokens, tokenCounter: exact, strategy: "last" })), slowRuns);
  row.lcTrimExactOrphans = lcOrphans(lcKept);
  let kept = [];
  row.ccTrim = time(() => (kept = trimMessages(messages, { maxTokens, format: "ai-sdk" })), runs);
  row.ccTrimOrphans = aiOrphans(kept);
  row.ccTrimExact = time(() => (kept = trimMessages(messages, { maxTokens, format: "ai-sdk", tokenizer: "o200k_base" })), slowRuns);
  row.ccTrimOrphans += aiOrphans(kept);
  row.ccTrimDetect = time(() => (kept = trimMessages(messages, { maxTokens })), runs);
  row.ccTrimOrphans += aiOrphans(kept);
  row.ccCompactorTrimOrphans = 0;
  for (const tokenizer of ["heuristic", "o200k_base"]) {
    const c = new Compactor({ contextWindow: 2_000_000, format: "ai-sdk", tokenizer, summarize: "extractive" });
    row[tokenizer === "heuristic" ? "ccCompactorTrim" : "ccCompactorTrimExact"] = time(() => (kept = c.trim(messages, { maxTokens })), runs);
    row.ccCompactorTrimOrphans += aiOrphans(kept);
    c.free();
  }

  // Pruning old tool outputs: the AI SDK's pruneMessages (drops tool calls and results before the
  // last two messages) against the package's prune (OpenCode's rule: old outputs replaced).
  row.aiPrune = time(() => pruneMessages({ messages, toolCalls: "before-last-2-messages", emptyMessages: "remove" }), runs);
  warm.free();
  const pruner = new Compactor({ contextWindow: 2_000_000, format: "ai-sdk", summarize: "extractive" });
  row.ccPruneWarm = time(() => pruner.prune(messages), runs);
  pruner.free();
  return row;
}

/** [`time`] for an async `f`. */
async function timeAsync(f, runs) {
  await f();
  const samples = [];
  const start = performance.now();
  for (let i = 0; i < runs || (performance.now() - start < SPAN && i < MAX_SAMPLES); i++) {
    globalThis.gc?.();
    const t0 = performance.now();
    await f();
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}
