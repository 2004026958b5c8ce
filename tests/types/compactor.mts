// Type-checked: the Compactor API as a TypeScript user writes it (generic over the message type).
import {
  Compactor,
  CompactionError,
  validateMessages,
  repairMessages,
  trimMessages,
  importSession,
  Session,
  type RenderResult,
  type CompactorOptions,
  type CompactResult,
  type SummaryRequest,
  type PlanPreview,
  type Violation,
  type Calibration,
} from "context-compaction";

interface MyMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | object[];
  myField?: number;
}

const options: CompactorOptions<MyMessage> = {
  contextWindow: 200_000,
  reserveTokens: 16_384,
  keepRecentTokens: 20_000,
  trigger: { anyOf: [{ fraction: 0.9 }, { turns: 50 }] },
  tokenizer: "o200k_base",
  preset: "pi",
  strategy: { type: "recursive", keep: 10, overlap: 2 },
  prune: { style: "opencode", minimum: 10_000 },
  summarize: async (req: SummaryRequest<MyMessage>) => {
    const first: MyMessage | undefined = req.messages[0];
    req.signal.throwIfAborted();
    return `${req.purpose} ${req.round} ${req.maxTokens} ${first?.role ?? ""}`;
  },
  onBeforeCompaction: (event) => (event.tokensBefore > 1_000_000 ? { summary: "too big to ask" } : undefined),
  onAfterCompaction: ({ tokensBefore, tokensAfter, compactedTokens }) => void [tokensBefore, tokensAfter, compactedTokens],
};
const compactor = new Compactor<MyMessage>(options);
const history: MyMessage[] = [{ role: "user", content: "hi", myField: 1 }];

const estimate: number = compactor.estimate(history).byKind.toolResults;
const should: boolean = compactor.check(history, { usage: { input: 10, output: 5 } }).shouldCompact;
const preview: PlanPreview = compactor.plan(history);
const kept: number[] = preview.kept;
const continueCost: number | undefined = preview.cost?.continue.inputEquivalents;
const costly = new Compactor<MyMessage>({ contextWindow: 200_000, summarize: "extractive", summaryMode: "continue", cost: { provider: "openai", prices: { input: 1.25, cacheRead: 0.1 }, minCacheTokens: 1024, cacheTtl: "1h" } });
void [continueCost, costly];
const result: CompactResult<MyMessage> = await compactor.compact(history, { instructions: "keep TODOs", signal: AbortSignal.timeout(60_000) });
const next: MyMessage[] = await compactor.maybeCompact(history);
const field: number | undefined = result.messages[0]?.myField;
const files: string[] = result.digest?.filesModified ?? [];
const pruned: MyMessage[] = compactor.prune(history);
const violations: Violation[] = validateMessages(history, "openai");
const repaired = repairMessages(history).actions.map((a) => a.action);
const trimmed: object[] = trimMessages(history, { maxTokens: 1000, strategy: "last", startOn: "user", includeSystem: true });
const session = importSession("", "pi").compactions.map((c) => c.summary);
const importWarnings: string[] = importSession("", "claude-code", { strict: true }).warnings;
void [estimate, should, kept, next, field, files, pruned, violations, repaired, trimmed, session, importWarnings, CompactionError];

// Misuse is a type error.
// @ts-expect-error: unknown strategy type
new Compactor({ contextWindow: 1, strategy: { type: "fifo", keep: 1 } });
// @ts-expect-error: a trigger holds one condition shape
new Compactor({ contextWindow: 1, trigger: { percent: 90 } });
// @ts-expect-error: the summarizer answers text
new Compactor({ contextWindow: 1, summarize: async () => 42 });
// @ts-expect-error: not a preset
new Compactor({ contextWindow: 1, preset: "cursor" });
// @ts-expect-error: not a failure policy
new Compactor({ contextWindow: 1, summarize: "extractive", onFailure: "ignore" });
// @ts-expect-error: the only built-in summarizer is "extractive"
new Compactor({ contextWindow: 1, summarize: "abstractive" });

// The failure policy, the error hook, the built-in summarizer and seed 002's drop strategies.
const resilient = new Compactor<MyMessage>({
  contextWindow: 100_000,
  preset: "seed-000",
  summarize: "extractive",
  onFailure: "auto",
  onError: (error) => console.warn(error.code, error.path ?? ""),
  summarySuffix: "\n(round {round})",
});
const archiving = new Compactor<MyMessage>({ contextWindow: 100_000, strategy: { type: "turn-window", keep: 4, summarize: false } });
void [resilient, archiving];

// Descriptive preset names, and `prepare()` with the clock of TTL pruning.
const layered = new Session<MyMessage>({ contextWindow: 100_000, preset: "block-pipeline", summarize: "extractive", prune: { style: "ttl", ttlMs: 60_000 } });
const prepared: Promise<RenderResult<MyMessage>> = layered.prepare({ now: Date.now(), force: false });
new Compactor<MyMessage>({ contextWindow: 100_000, preset: "workstream", summarize: "extractive" });
void prepared;

// entries(): a compaction entry carries its numbers, narrowed by `type`.
for (const entry of layered.entries()) {
  if (entry.type === "compaction") {
    const numbers: [number, number, number, string | null, string | null] = [entry.tokensBefore, entry.tokensAfter, entry.round, entry.summary, entry.firstKeptEntryId];
    void numbers;
  } else {
    // @ts-expect-error only compaction entries have a summary
    void entry.summary;
  }
}

// Compactor.trim: the caller's message type back; tokenizer and format are the compactor's.
const trimmer = new Compactor<MyMessage>({ contextWindow: 100_000, summarize: "extractive" });
const keptByTrim: MyMessage[] = trimmer.trim([] as MyMessage[], { maxTokens: 1_000, startOn: "user", allowPartial: true });
// @ts-expect-error the compactor's tokenizer is used
trimmer.trim([] as MyMessage[], { maxTokens: 1_000, tokenizer: "o200k_base" });
void keptByTrim;

// Model-aware estimates, self-calibration and the expected error.
const calibrated = new Compactor<MyMessage>({ model: "claude-sonnet-4-5", summarize: "extractive", safetyMargin: "auto", selfCalibration: true });
const checked = calibrated.check(history, { usage: { input_tokens: 10, output_tokens: 5 } });
const errorTokens: number = checked.tokensError;
const calibration: Calibration = calibrated.estimate(history).calibration;
const provider: "openai" | "anthropic" | "google" | "o200k" = calibration.provider;
const toolFactor: number = calibration.factors.toolResults;
const learnedFrom: number = calibration.samples;
const relative: number = calibration.error;
const sessionCheck = new Session<MyMessage>({ model: "gemini-2.5-pro", summarize: "extractive", safetyMargin: "auto" }).check();
const sessionCalibration: Calibration = sessionCheck.calibration;
const sessionError: number = sessionCheck.tokensError;
void [errorTokens, provider, toolFactor, learnedFrom, relative, sessionCalibration, sessionError];
// @ts-expect-error: the margin is a number of tokens or "auto"
new Compactor({ contextWindow: 1, safetyMargin: "large" });
// @ts-expect-error: selfCalibration is a boolean
new Compactor({ contextWindow: 1, selfCalibration: "on" });
