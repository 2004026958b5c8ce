//! TypeScript declarations for what wasm-bindgen cannot derive: unions, option and result shapes,
//! and the generic `Compactor` class (its methods take and return the caller's message type).

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** An exact encoding whose rank table ships with the package. */
export type EncodingName = "o200k_base" | "cl100k_base";
/** How tokens are counted: the fast content-aware estimate, or an exact encoding. */
export type Tokenizer = "heuristic" | EncodingName;
/** The message formats the package reads and writes; "auto" detects them. */
export type MessageFormat = "auto" | "ai-sdk" | "openai" | "anthropic" | "pi";
/** Defaults of known agents and of the seed systems (docs/presets.md). */
export type PresetName = "pi" | "seed-000" | "codex" | "opencode" | "claude-code" | "langchain" | "anthropic-api" | "seed-001" | "seed-003" | "seed-004";

/** When to compact. `fraction`: tokens ≥ ⌊f × available⌋; `fractionAbove`: tokens > f × available. */
export type Trigger =
  | { fraction: number }
  | { fractionAbove: number }
  | { tokens: number }
  | { turns: number }
  | { messages: number }
  | { anyOf: Trigger[] }
  | { allOf: Trigger[] }
  | "never";

/** What is kept verbatim (docs/planning.md). */
/**
 * Seed 002's sliding window, turn window and token budget make no model call: what they do not
 * keep is dropped and returned as `removed`, unless `summarize: true`. The others summarize.
 */
export type KeepStrategy =
  | { type: "recent-tokens"; keep: number; summarize?: boolean }
  | { type: "sliding-window"; keep: number; summarize?: boolean }
  | { type: "turn-window"; keep: number; summarize?: boolean }
  | { type: "token-budget"; maxTokens: number; summarize?: boolean }
  | { type: "recursive"; keep: number; overlap?: number; summarize?: boolean }
  | { type: "codex"; maxTokens: number; summarize?: boolean };

/**
 * What `maybeCompact` does when the summarizer fails (`SUMMARIZER_FAILED`, `TIMEOUT`,
 * `SUMMARY_EMPTY`, `NO_PROGRESS`): `"auto"` (default) returns the messages unchanged while they
 * still fit the window minus the reserve and falls back to the extractive summary past that;
 * `"unchanged"`, `"extractive"` and `"reject"` always do that one thing.
 */
export type FailurePolicy = "auto" | "unchanged" | "extractive" | "reject";

/** Pruning tried before shrinking the kept tail, and used by `prune()`. */
export type PruneOptions =
  | false
  | "supersede"
  | { style: "supersede"; supersede?: boolean }
  | { style: "opencode"; supersede?: boolean; protectTurns?: number; protectTokens?: number; minimum?: number; protectedTools?: string[]; placeholder?: string }
  | { style: "anthropic"; supersede?: boolean; keep?: number; clearAtLeast?: number; excludeTools?: string[]; clearToolInputs?: boolean; placeholder?: string }
  /** Cache-lifetime pruning: tool results older than `ttlMs` (default 300,000) are hidden, except the newest `keepRecent` (default 3). A `Session` applies it first in `prepare()`. */
  | { style: "ttl"; supersede?: boolean; ttlMs?: number; keepRecent?: number; replacement?: string };

/** One call of your summarizer. */
export interface SummaryRequest<M = object> {
  /** What the call is for; "memory" condenses a session's memory-block notes. */
  purpose: "history" | "turn-prefix" | "chunk" | "rollup" | "memory";
  /** Ready-to-send system prompt. */
  system: string;
  /** Ready-to-send user prompt: previous summary, transcript, instructions, format. */
  prompt: string;
  /** The serialized messages alone. */
  transcript: string;
  /** Your messages this piece covers. */
  messages: M[];
  previousSummary?: string;
  instructions?: string;
  maxTokens: number;
  round: number;
  /** A session's workstream state so far, when it keeps one (answer with a `state` delta). */
  state?: WorkstreamState;
  /** Aborted on timeout or when your signal aborts. */
  signal: AbortSignal;
}
/** Workstream state (structured items kept across compactions; limits 8/6/10/5/5/10/6). */
export interface WorkstreamState {
  decisions?: unknown[];
  constraints?: unknown[];
  tasks?: unknown[];
  openQuestions?: unknown[];
  risks?: unknown[];
  artifacts?: unknown[];
  contributions?: unknown[];
}
/** Items to add to the workstream state, and under `remove` items to drop. */
export interface WorkstreamDelta extends WorkstreamState { remove?: WorkstreamState }
/** The summary text, or `{ summary }`; a session also takes a workstream `state` delta. */
export type SummaryAnswer = string | { summary: string; state?: WorkstreamDelta };
export type Summarize<M = object> = (request: SummaryRequest<M>) => SummaryAnswer | Promise<SummaryAnswer>;

export interface BeforeCompactionEvent<M = object> { tokensBefore: number; messages: M[] }
/** `false` or `{ cancel: true }` cancels; `{ summary }` supplies the summary (no summarizer call). */
export type BeforeCompactionAnswer = void | undefined | boolean | { cancel: true } | { summary: string };
export interface AfterCompactionEvent { tokensBefore: number; tokensAfter: number; compactedTokens: number }

/** Every option, with its default, is listed in docs/api.md. */
export interface CompactorOptions<M = object> {
  contextWindow?: number;
  model?: string;
  maxOutputTokens?: number;
  reserveTokens?: number;
  safetyMargin?: number;
  systemTokens?: number;
  keepRecentTokens?: number;
  strategy?: KeepStrategy;
  turnBoundary?: "split" | "snap";
  trigger?: Trigger;
  tokenizer?: Tokenizer;
  format?: MessageFormat;
  preset?: PresetName;
  /**
   * Your model call, or `"extractive"` for the built-in summary without a model (the digest of
   * the replaced messages). Required unless the strategy only drops.
   */
  summarize?: Summarize<M> | "extractive";
  /** What `maybeCompact` does when the summarizer fails (default `"auto"`). */
  onFailure?: FailurePolicy;
  /**
   * Called with every failed compaction's `CompactionError` (awaited), before `compact()`
   * rejects or `maybeCompact` recovers. Without it, a failure `maybeCompact` recovers from is
   * written to `console.warn`.
   */
  onError?: (error: Error & { readonly code: string; readonly path?: string }) => void | Promise<void>;
  summaryTokens?: number;
  prefixSummaryTokens?: number;
  summaryRole?: "user" | "assistant" | "system";
  /** Text before the summary; `{round}` is the round. */
  summaryPrefix?: string;
  /** Text after the summary; `{round}` is the round (default: the line `(compaction round N)`). */
  summarySuffix?: string;
  summaryQuestion?: string | null;
  continueMessage?: string | null;
  prune?: PruneOptions;
  transcript?: { toolOutputChars?: number; includeReasoning?: boolean; toolAllow?: string[] };
  chunkChars?: number;
  rollupTokens?: number;
  summarizerInputTokens?: number;
  imageRule?: "anthropic" | "openai" | "gemini" | number;
  timeoutMs?: number;
  retries?: number;
  retryDelayMs?: number;
  maxConsecutiveFailures?: number;
  prompts?: { system?: string; history?: string; update?: string; turnPrefix?: string; chunk?: string; rollup?: string };
  onBeforeCompaction?: (event: BeforeCompactionEvent<M>) => BeforeCompactionAnswer | Promise<BeforeCompactionAnswer>;
  onAfterCompaction?: (event: AfterCompactionEvent) => void;
  onProgress?: (progress: { done: number; total: number }) => void;
}

/** Usage the provider reported for the last response. */
export interface TokenUsage { input: number; output: number; cacheRead?: number; cacheWrite?: number }
export interface TokensByKind { text: number; toolCalls: number; toolResults: number; images: number; reasoning: number; system: number }
export interface Estimate { total: number; perMessage: number[]; byKind: TokensByKind }
export interface CheckResult { shouldCompact: boolean; tokens: number; threshold: number | null; reason: string }
export type Escalation =
  | { step: "prune"; tokensFreed: number }
  | { step: "shrink"; from: number; to: number }
  | { step: "split-turn" }
  | { step: "truncate"; tokensFreed: number }
  | { step: "keep-nothing" };
export interface PartChange { message: number; part: number; tokensFreed: number }
/** Indices refer to the messages given to `plan`. */
export interface PlanPreview {
  shouldCompact: boolean;
  reason: string;
  threshold: number | null;
  tokensBefore: number;
  tokensAfter: number;
  system: number[];
  summarize: number[];
  turnPrefix: number[];
  dropped: number[];
  pinned: number[];
  kept: number[];
  previousSummary: number | null;
  splitTurn: boolean;
  pruned: PartChange[];
  truncated: PartChange[];
  escalations: Escalation[];
  noop: boolean;
}
export interface Digest { filesRead: string[]; filesModified: string[]; commands: string[]; errors: string[]; userRequests: string[] }
export interface CompactResult<M = object> {
  compacted: boolean;
  messages: M[];
  summary: string | null;
  removed: M[];
  tokensBefore: number;
  tokensAfter: number;
  round: number;
  splitTurn: boolean;
  digest: Digest | null;
  warnings: string[];
}
export interface CompactCallOptions { instructions?: string; signal?: AbortSignal; force?: boolean }

/** Compacts message arrays; stateless over the messages (api.md). */
export declare class Compactor<M extends object = object> {
  constructor(options: CompactorOptions<M>);
  estimate(messages: readonly M[]): Estimate;
  check(messages: readonly M[], options?: { usage?: TokenUsage }): CheckResult;
  plan(messages: readonly M[], options?: { usage?: TokenUsage }): PlanPreview;
  prune<T extends M>(messages: readonly T[]): T[];
  compact<T extends M>(messages: readonly T[], options?: CompactCallOptions): Promise<CompactResult<T>>;
  maybeCompact<T extends M>(messages: readonly T[], options?: CompactCallOptions): Promise<T[]>;
  /**
   * Forgets every message object seen. Each object is converted once, the first time a call sees
   * it; after changing a message object in place, call this (or pass a new object instead).
   */
  forget(): void;
  free(): void;
  [Symbol.dispose](): void;
}

export interface Violation {
  kind: "orphan-result" | "result-before-call" | "unanswered-call" | "duplicate-call-id" | "duplicate-result-id" | "summary-misplaced" | "empty-message";
  /** `messages[3]` or `messages[3].content[0]`. */
  path: string;
  message: number;
  part: number | null;
  id: string | null;
  detail: string;
}
export type RepairAction =
  | { action: "removed-result"; message: number; id: string; reason: string }
  | { action: "removed-message"; message: number }
  | { action: "renamed-call"; message: number; from: string; to: string }
  | { action: "renamed-result"; message: number; from: string; to: string }
  | { action: "added-results"; after: number; ids: string[] }
  | { action: "cleared-summary"; message: number };
export interface RepairResult<M = object> { messages: M[]; actions: RepairAction[] }
/** A compaction the agent recorded in its session file. Indices refer to `history`. */
export interface SessionCompaction {
  /** 1-based line of the compaction entry. */
  line: number;
  /** The entry's id (pi `id`, Claude Code `uuid`), when present. */
  id: string | null;
  summary: string;
  tokensBefore: number | null;
  /** `"manual"` or `"auto"` when recorded. */
  trigger: string | null;
  /** The first message kept verbatim after the summary, by entry id and by index. */
  firstKeptEntryId: string | null;
  firstKeptIndex: number | null;
  /** Messages of `history` written before the compaction entry. */
  atMessage: number;
  /** The message of `history` that carries the summary (Claude Code), if any. */
  summaryIndex: number | null;
}
/** A pi or Claude Code session file, imported. */
export interface ImportedSession {
  format: "pi" | "anthropic";
  /** What the agent would send now: the latest recorded summary and what follows it. */
  messages: object[];
  /** Every message of the file, including what compactions summarized. */
  history: object[];
  compactions: SessionCompaction[];
}
export interface TrimOptions {
  maxTokens: number;
  strategy?: "first" | "last";
  startOn?: string | string[];
  endOn?: string | string[];
  includeSystem?: boolean;
  allowPartial?: boolean;
  tokenizer?: Tokenizer;
  format?: MessageFormat;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// A JS value declared as `EncodingName`; checked at run time.
    #[wasm_bindgen(typescript_type = "EncodingName")]
    pub type EncodingArg;

    /// A JS value declared as `MessageFormat`; checked at run time.
    #[wasm_bindgen(typescript_type = "MessageFormat")]
    pub type FormatArg;

    /// A JS value declared as `Tokenizer`; checked at run time.
    #[wasm_bindgen(typescript_type = "Tokenizer")]
    pub type TokenizerArg;
}
