//! TypeScript declarations for what wasm-bindgen cannot derive: unions, option and result shapes,
//! and the generic `Compactor` class (its methods take and return the caller's message type).

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
import type { ConversationStore } from "../../js/stores/contract.js";
/** An exact encoding whose rank table ships with the package. */
export type EncodingName = "o200k_base" | "cl100k_base";
/** How tokens are counted: the fast content-aware estimate, or an exact encoding. */
export type Tokenizer = "heuristic" | EncodingName;
/** The message formats the package reads and writes; "auto" detects them. */
export type MessageFormat = "auto" | "ai-sdk" | "openai" | "anthropic" | "pi" | "langchain";
/**
 * A preset: the trigger, kept tail, summary budget and prompts of a known agent or design
 * (docs/presets.md). The design-document presets have two names: `"pi-plan"` (`"seed-000"`),
 * `"compaction-layer"` (`"seed-001"`, an AI SDK compaction layer), `"block-pipeline"`
 * (`"seed-003"`, summary blocks with TTL pruning) and `"workstream"` (`"seed-004"`, a workstream
 * state carried between summaries).
 */
export type PresetName =
  | "pi" | "codex" | "opencode" | "claude-code" | "langchain" | "anthropic-api"
  | "pi-plan" | "compaction-layer" | "block-pipeline" | "workstream"
  | "seed-000" | "seed-001" | "seed-003" | "seed-004";

/**
 * When to compact. "Available" is the context window minus `reserveTokens`, `safetyMargin` and
 * `systemTokens`, in tokens. `fraction`: tokens ≥ ⌊f × available⌋; `fractionAbove`: tokens >
 * f × available; `tokens`: tokens ≥ n; `turns` / `messages`: more than n user turns / non-system
 * messages; `anyOf` / `allOf`: any / all of the listed triggers; `"never"`: only on request.
 */
export type Trigger =
  | { fraction: number }
  | { fractionAbove: number }
  | { tokens: number }
  | { turns: number }
  | { messages: number }
  | { anyOf: Trigger[] }
  | { allOf: Trigger[] }
  | "never";

/**
 * What is kept verbatim (docs/planning.md). `keep` counts tokens for `"recent-tokens"`, messages
 * for `"sliding-window"` and `"recursive"`, turns for `"turn-window"`; `maxTokens` is in tokens
 * (for `"codex"`: the budget of the recent user messages kept). The window strategies (`"sliding-window"`,
 * `"turn-window"`, `"token-budget"`) make no model call: what they do not keep is dropped and
 * returned as `removed`, unless `summarize: true`. The others summarize. `overlap` (default 2,
 * messages): the first kept messages the recursive strategy also shows the summarizer.
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

/**
 * Pruning of old tool outputs without a model call, tried before shrinking the kept tail and used
 * by `prune()`. `false`: none; `"supersede"` (the default): only superseded file reads; an object
 * picks a style (`"opencode"`, `"anthropic"`, `"ttl"`), each with superseded reads first.
 */
export type PruneOptions =
  | false
  | "supersede"
  | {
      /** Only superseded file reads. */
      style: "supersede";
      /** Prune an older read of a file that was read again or changed later. Default `true`. */
      supersede?: boolean;
    }
  | {
      /** OpenCode's pruning: old tool outputs beyond the newest `protectTokens`. */
      style: "opencode";
      /** Prune superseded file reads first. Default `true`. */
      supersede?: boolean;
      /** The last user turns never pruned. Default 2. */
      protectTurns?: number;
      /** Tokens of the newest tool output never pruned. Default 40,000. */
      protectTokens?: number;
      /** Prune only when more than this many tokens are freed. Default 20,000. */
      minimum?: number;
      /** Names of tools whose outputs are never pruned. Default `["skill"]`. */
      protectedTools?: string[];
      /** Text put in place of a pruned output. Default `"[Old tool result content cleared]"`. */
      placeholder?: string;
    }
  | {
      /** The Anthropic API's "clear tool uses" edit, applied client side. */
      style: "anthropic";
      /** Prune superseded file reads first. Default `true`. */
      supersede?: boolean;
      /** The newest tool uses (call and result) kept. Default 3. */
      keep?: number;
      /** Clear only when at least this many tokens are freed. Default 0 (any amount). */
      clearAtLeast?: number;
      /** Names of tools never cleared. Default: none. */
      excludeTools?: string[];
      /** Also replace a cleared call's input by `{}`. Default `false`. */
      clearToolInputs?: boolean;
      /** Text put in place of a cleared result. Default `"[Tool result cleared to save context]"`. */
      placeholder?: string;
    }
  | {
      /**
       * Cache-lifetime pruning: tool results older than `ttlMs` are hidden. A `Session` applies it
       * first in `prepare()`; `Compactor.prune()` at the time of the call.
       */
      style: "ttl";
      /** Prune superseded file reads first. Default `true`. */
      supersede?: boolean;
      /**
       * Age in milliseconds (from the message's `timestamp`) past which a tool result is hidden.
       * Default 300,000 (five minutes, Anthropic's prompt-cache lifetime).
       */
      ttlMs?: number;
      /** The newest tool results never hidden. Default 3. */
      keepRecent?: number;
      /** Text put in place of a hidden result. Default: a note to run the tool again if needed. */
      replacement?: string;
    };

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
  /** The summary this one builds on (an earlier compaction's, or the previous chunk's). */
  previousSummary?: string;
  /** The caller's extra instructions (`compact(messages, { instructions })`). */
  instructions?: string;
  /** The most tokens the answer should have. */
  maxTokens: number;
  /** The compaction round this summary belongs to (1 for the first). */
  round: number;
  /** A session's workstream state so far, when it keeps one (answer with a `state` delta). */
  state?: WorkstreamState;
  /** Aborted on timeout or when your signal aborts. */
  signal: AbortSignal;
}
/** Workstream state (structured items kept across compactions; limits 8/6/10/5/5/10/6). */
export interface WorkstreamState {
  /** Key decisions (at most 8 kept). */
  decisions?: unknown[];
  /** Active constraints (at most 6 kept). */
  constraints?: unknown[];
  /** Tasks (at most 10 kept). */
  tasks?: unknown[];
  /** Open questions (at most 5 kept). */
  openQuestions?: unknown[];
  /** Risks (at most 5 kept). */
  risks?: unknown[];
  /** Artifacts: files and other outputs (at most 10 kept). */
  artifacts?: unknown[];
  /** Agent contributions (at most 6 kept). */
  contributions?: unknown[];
}
/** Items to add to the workstream state, and under `remove` items to drop. */
export interface WorkstreamDelta extends WorkstreamState {
  /** Items to drop from the state. */
  remove?: WorkstreamState;
}
/** The summary text, or `{ summary }`; a session also takes a workstream `state` delta. */
export type SummaryAnswer = string | { summary: string; state?: WorkstreamDelta };
/** Your model call: gets one request, answers (or resolves to) the summary. */
export type Summarize<M = object> = (request: SummaryRequest<M>) => SummaryAnswer | Promise<SummaryAnswer>;

/** What `onBeforeCompaction` receives. */
export interface BeforeCompactionEvent<M = object> {
  /** Tokens of the context before the compaction. */
  tokensBefore: number;
  /** The messages given to the call (your objects). */
  messages: M[];
}
/** `false` or `{ cancel: true }` cancels; `{ summary }` supplies the summary (no summarizer call). */
export type BeforeCompactionAnswer = void | undefined | boolean | { cancel: true } | { summary: string };
/** What `onAfterCompaction` receives. */
export interface AfterCompactionEvent {
  /** Tokens of the context before the compaction. */
  tokensBefore: number;
  /** Tokens of the compacted context. */
  tokensAfter: number;
  /** Tokens the compaction removed (`tokensBefore - tokensAfter`). */
  compactedTokens: number;
}

/**
 * Options of `new Compactor(options)` (docs/api.md). Validated up front: an unknown key, a wrong
 * type or an impossible number throws `INVALID_OPTIONS` naming the key. A `preset` is applied
 * first; every explicit option overrides it. Token amounts are in tokens of the configured
 * `tokenizer`.
 */
export interface CompactorOptions<M = object> {
  /** Tokens the model accepts (input and output). Default: the `model`'s; otherwise required. */
  contextWindow?: number;
  /**
   * A model name (`"gpt-4o"`, `"claude-sonnet-4-5"`, `"gemini-2.5-pro"`; provider prefixes
   * allowed): sets `contextWindow`, `maxOutputTokens` and the estimate's target, the provider's
   * own count: the exact tokenizer for OpenAI models, a calibrated estimate for Anthropic and
   * Google models (docs/tokens.md). Default: none (the heuristic, close to `o200k_base`).
   */
  model?: string;
  /**
   * The model's output limit in tokens, used by presets (OpenCode's reserve). Default: the
   * `model`'s, else `contextWindow / 8` (at most 32,000).
   */
  maxOutputTokens?: number;
  /** Tokens kept free for the model's reply. Default 16,384 (at most a quarter of the window). */
  reserveTokens?: number;
  /**
   * Tokens kept free for estimation error, or `"auto"`: the expected error of each count
   * (`tokensError` of `check()`), which is larger while the estimate is uncalibrated and shrinks
   * as usage numbers calibrate it; at most half the window after `reserveTokens` and
   * `systemTokens`. Default 0.
   */
  safetyMargin?: number | "auto";
  /**
   * Whether the usage given to `check` (and a session's `recordUsage`) also calibrates the
   * estimate of the messages the provider has not counted yet (docs/tokens.md). Default `true`.
   */
  selfCalibration?: boolean;
  /** Tokens sent besides the messages (system prompt, tool definitions). Default 0. */
  systemTokens?: number;
  /**
   * Tokens of recent messages kept verbatim: shorthand for
   * `strategy: { type: "recent-tokens", keep }`. Default 20,000 (at most a fifth of the window).
   */
  keepRecentTokens?: number;
  /** What is kept verbatim. Default: the recent tokens (`keepRecentTokens`). */
  strategy?: KeepStrategy;
  /**
   * `"split"`: the kept tail may start inside a turn, whose beginning is summarized separately;
   * `"snap"`: the kept tail starts at a user message. Default `"split"`.
   */
  turnBoundary?: "split" | "snap";
  /**
   * When to compact. Default `{ fractionAbove: 1 }`: when the tokens exceed the window minus
   * reserve, safety margin and system tokens.
   */
  trigger?: Trigger;
  /** How tokens are counted. Default `"heuristic"` (or the `model`'s exact encoding). */
  tokenizer?: Tokenizer;
  /** The messages' format. Default `"auto"`: detected on each call. */
  format?: MessageFormat;
  /** Defaults of a known agent or design, applied before the other options. Default: none. */
  preset?: PresetName;
  /**
   * Your model call, or `"extractive"` for the built-in summary without a model (the digest of
   * the replaced messages). Required unless the strategy only drops. Default: none.
   */
  summarize?: Summarize<M> | "extractive";
  /** What `maybeCompact` does when the summarizer fails. Default `"auto"`. */
  onFailure?: FailurePolicy;
  /**
   * Called with every failed compaction's `CompactionError` (awaited), before `compact()`
   * rejects or `maybeCompact` recovers. Default: none; a failure `maybeCompact` recovers from is
   * then written to `console.warn`.
   */
  onError?: (error: Error & { readonly code: string; readonly path?: string }) => void | Promise<void>;
  /**
   * Saves each automatic compaction (`maybeCompact`) in this store under `conversationId`, so a
   * fresh Compactor (a new request or process) handed the same history plus new messages continues
   * from the saved summary instead of summarizing again. The messages it stands for are matched by
   * count and a digest of their content. Store failures never fail a call: they go to `onError`
   * as `STORE_FAILED`. With `conversationId`.
   */
  store?: ConversationStore;
  /** The conversation whose compactions `store` keeps (required with `store`; not a Session's id). */
  conversationId?: string;
  /** With `store`: how long the compaction lease lasts while a summary is written. Default 300,000. */
  leaseMs?: number;
  /** With `store`: how long a call waits for another request's compaction of the same conversation. Default 60,000. */
  compactionWaitMs?: number;
  /** With `store`: this Compactor's name as a lease holder. Default: the conversation id and a random tag. */
  holder?: string;
  /** The most tokens of the history summary. Default 0.8 × `reserveTokens` (13,107). */
  summaryTokens?: number;
  /** The most tokens of a split turn's prefix summary. Default 0.4 × `reserveTokens` (6,553). */
  prefixSummaryTokens?: number;
  /** Role of the summary message. Default `"user"`. */
  summaryRole?: "user" | "assistant" | "system";
  /**
   * Text before the summary; `{round}` is the round. Default: "The conversation history before
   * this point was compacted into the following summary:" and a blank line.
   */
  summaryPrefix?: string;
  /** Text after the summary; `{round}` is the round. Default: the line `(compaction round N)`. */
  summarySuffix?: string;
  /** A user message put before the summary, which then reads as its answer. Default `null` (none). */
  summaryQuestion?: string | null;
  /** A user message put after the summary in automatic compactions. Default `null` (none). */
  continueMessage?: string | null;
  /** Pruning tried before shrinking the kept tail, and used by `prune()`. Default `"supersede"`. */
  prune?: PruneOptions;
  /** How messages are written into the summarizer's transcript. */
  transcript?: {
    /** Tool outputs longer than this many characters are cut in the transcript. Default 2,000. */
    toolOutputChars?: number;
    /** Include reasoning parts. Default `false`. */
    includeReasoning?: boolean;
    /** Only these tools appear: names, or prefixes ending in `*` (`"mcp_*"`). Default: every tool. */
    toolAllow?: string[];
  };
  /**
   * Transcripts longer than this many characters are summarized in chunks; `"window"`: only a
   * transcript that does not fit the summarizer's context window is. Default 120,000
   * (`"window"` for `claude-code`, `codex`, `opencode`, `pi-plan`, `compaction-layer`).
   */
  chunkChars?: number | "window";
  /** A summary above this many tokens is condensed once more. Default: `summaryTokens`. */
  rollupTokens?: number;
  /** Also cut transcript chunks at this many tokens. Default: none (`"langchain"` preset: 4,000). */
  summarizerInputTokens?: number;
  /** How images are priced: a provider's rule, or a fixed number of tokens each. Default: the `model`'s provider's rule, else `"anthropic"`. */
  imageRule?: "anthropic" | "openai" | "gemini" | number;
  /** Milliseconds allowed per summarizer call; the request's `signal` aborts then. Default 120,000. */
  timeoutMs?: number;
  /** Retries of a failed, empty, not-smaller or timed-out summarizer call. Default 2. */
  retries?: number;
  /** Milliseconds before the first retry; doubles on each retry. Default 1,000. */
  retryDelayMs?: number;
  /**
   * The circuit breaker: `maybeCompact` stops calling the summarizer after this many failed
   * compactions in a row, until one succeeds (`compact` always tries). Default 3.
   */
  maxConsecutiveFailures?: number;
  /**
   * Replacement prompt templates. Placeholders: `{transcript}`, `{previous_summary}`,
   * `{instructions}`, `{max_tokens}`, `{round}`, `{part}`, `{parts}`, `{original_task}`, `{state}`.
   * Default: the built-in prompts (or the preset's).
   */
  prompts?: {
    /** The system prompt of every summarizer call. */
    system?: string;
    /** Summarizes a history in one piece, with no earlier summary. */
    history?: string;
    /** Merges a history in one piece into an earlier summary. */
    update?: string;
    /** Summarizes the beginning of a split turn. */
    turnPrefix?: string;
    /** Summarizes one chunk of a long history, continuing the summary so far. */
    chunk?: string;
    /** Condenses a summary longer than `rollupTokens`. */
    rollup?: string;
  };
  /**
   * Called before each compaction: return `false` or `{ cancel: true }` to cancel it, or
   * `{ summary }` to supply the summary yourself. Default: none.
   */
  onBeforeCompaction?: (event: BeforeCompactionEvent<M>) => BeforeCompactionAnswer | Promise<BeforeCompactionAnswer>;
  /** Called after each successful compaction with its token counts. Default: none. */
  onAfterCompaction?: (event: AfterCompactionEvent) => void;
  /** Called after each summarizer piece with the pieces done and the total. Default: none. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

/** Usage the provider reported for the last response. */
export type TokenUsage = PiUsage | OpenAIUsage | AnthropicUsage | AiSdkUsage | AiSdkProviderUsage;
/** This package's and pi's usage: `input` excludes the cached tokens. */
export interface PiUsage { input: number; output: number; cacheRead?: number; cacheWrite?: number }
/** OpenAI's `usage` (chat completions): cached tokens are part of `prompt_tokens`. */
export interface OpenAIUsage {
    prompt_tokens: number;
    completion_tokens?: number;
    total_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number | null } | null;
}
/** Anthropic's `usage`: `input_tokens` excludes the cached tokens. */
export interface AnthropicUsage {
    input_tokens: number;
    output_tokens?: number;
    cache_read_input_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
}
/** The AI SDK's `LanguageModelUsage` (`result.usage` of `generateText`, versions 5 and 6). */
export interface AiSdkUsage {
    inputTokens: number | undefined;
    outputTokens?: number | undefined;
    totalTokens?: number | undefined;
    cachedInputTokens?: number | undefined;
    inputTokenDetails?: { noCacheTokens?: number | undefined; cacheReadTokens?: number | undefined; cacheWriteTokens?: number | undefined };
}
/** The AI SDK's provider-level usage (`LanguageModelV3Usage`, seen by middleware). */
export interface AiSdkProviderUsage {
    inputTokens: { total: number | undefined; noCache?: number | undefined; cacheRead?: number | undefined; cacheWrite?: number | undefined };
    outputTokens?: { total: number | undefined; text?: number | undefined; reasoning?: number | undefined };
}
/** Tokens by kind of content. */
export interface TokensByKind {
  /** Text parts of messages other than system messages. */
  text: number;
  /** Tool calls: names and inputs. */
  toolCalls: number;
  /** Tool results. */
  toolResults: number;
  /** Images and files. */
  images: number;
  /** Reasoning parts. */
  reasoning: number;
  /** Text of system messages. */
  system: number;
}
/**
 * What self-calibration has learned from the usage numbers given so far (`check(messages,
 * { usage })`, `session.recordUsage(usage)`): the correction applied to the model-aware estimate
 * of messages the provider has not counted yet.
 */
export interface Calibration {
  /** Whose count the estimate aims at: `"openai"`, `"anthropic"`, `"google"`, or `"o200k"` without a known `model`. */
  provider: "openai" | "anthropic" | "google" | "o200k";
  /** The correction per kind of content, each between 0.5 and 2 (1: nothing learned). Images keep their own rule. */
  factors: CalibrationFactors;
  /** Usage numbers learned from. */
  samples: number;
  /** The expected relative error of the estimate (0.18 is 18%); shrinks as usage is learned from. */
  error: number;
}
/** Correction factors per kind of content. */
export interface CalibrationFactors {
  /** Text of user and assistant messages. */
  text: number;
  /** Tool calls. */
  toolCalls: number;
  /** Tool results. */
  toolResults: number;
  /** Reasoning. */
  reasoning: number;
  /** Text of system messages. */
  system: number;
}
/** What `estimate()` returns, in tokens. */
export interface Estimate {
  /** Tokens of all the messages (the model-aware estimate, before the calibration's correction). */
  total: number;
  /** Tokens of each message, in order. */
  perMessage: number[];
  /** The total by kind of content. */
  byKind: TokensByKind;
  /** What self-calibration has learned so far. */
  calibration: Calibration;
}
/** What `check()` returns. */
export interface CheckResult {
  /** Whether the trigger fires. */
  shouldCompact: boolean;
  /**
   * Tokens of the context: the provider's count up to the last response when `usage` is given,
   * plus the estimate (corrected by self-calibration) of what came after.
   */
  tokens: number;
  /**
   * The expected error of `tokens`, in tokens: the calibration's expected relative error times
   * the estimated part (the provider's own count adds none).
   */
  tokensError: number;
  /** The token threshold of the trigger, or null when it has none (a turn or message count). */
  threshold: number | null;
  /** Why, in words. */
  reason: string;
}
/** A step a plan took to fit under the limit, in order. */
export type Escalation =
  | { step: "prune"; tokensFreed: number }
  | { step: "shrink"; from: number; to: number }
  | { step: "split-turn" }
  | { step: "truncate"; tokensFreed: number }
  | { step: "keep-nothing" };
/** A pruned or truncated part of a message. */
export interface PartChange {
  /** Index of the message. */
  message: number;
  /** Index of the part within the message. */
  part: number;
  /** Tokens freed. */
  tokensFreed: number;
}
/** What `plan()` returns: a preview of a compaction. Indices refer to the messages given to `plan`. */
export interface PlanPreview {
  /** Whether the trigger fires. */
  shouldCompact: boolean;
  /** Why, in words. */
  reason: string;
  /** The trigger's token threshold, or null. */
  threshold: number | null;
  /** Tokens of the context now. */
  tokensBefore: number;
  /** Tokens after the compaction, summaries counted at their budgets. */
  tokensAfter: number;
  /** Leading system messages, kept first. */
  system: number[];
  /** Messages replaced by the history summary. */
  summarize: number[];
  /** The beginning of a split turn, summarized separately. */
  turnPrefix: number[];
  /** Messages removed without a summary. */
  dropped: number[];
  /** Messages kept right after the summary. */
  pinned: number[];
  /** The kept tail, verbatim. */
  kept: number[];
  /** The earlier summary message folded in, or null. */
  previousSummary: number | null;
  /** Whether the kept tail starts inside a turn. */
  splitTurn: boolean;
  /** Tool outputs pruned. */
  pruned: PartChange[];
  /** Oversized tool outputs truncated. */
  truncated: PartChange[];
  /** The steps taken to fit under the limit. */
  escalations: Escalation[];
  /** True when the plan changes nothing. */
  noop: boolean;
}
/** Facts gathered from the summarized messages. */
export interface Digest {
  /** Paths of files read. */
  filesRead: string[];
  /** Paths of files written or edited. */
  filesModified: string[];
  /** Commands run. */
  commands: string[];
  /** Errors seen. */
  errors: string[];
  /** What the user asked for. */
  userRequests: string[];
  /** What the agent's latest plan or to-do list leaves to do. */
  pendingTasks: string[];
  /** How many of these facts the summary keeps, and which it lost. */
  retention: Retention;
}
/** Fact retention of a summary (see `Digest`). */
export interface Retention {
  /** Facts in all. */
  total: number;
  /** Facts the summary mentions. */
  kept: number;
  /** `kept / total` (1 when there is nothing to keep). */
  recall: number;
  /** Per kind: `filesModified`, `filesRead`, `commands`, `errors`, `userRequests`, `pendingTasks`. */
  kinds: Record<"filesModified" | "filesRead" | "commands" | "errors" | "userRequests" | "pendingTasks", { total: number; kept: number; missing: string[] }>;
}
/** What `compact()` resolves to. */
export interface CompactResult<M = object> {
  /** Whether anything was compacted (false with a warning when there was nothing to compact). */
  compacted: boolean;
  /** The new context: system messages, the summary, pinned messages, the kept tail. */
  messages: M[];
  /** The summary text, or null when nothing was summarized. */
  summary: string | null;
  /** Your messages removed without a summary (the window strategies); empty otherwise. */
  removed: M[];
  /** Tokens of the context before. */
  tokensBefore: number;
  /** Tokens of the compacted context. */
  tokensAfter: number;
  /** The compaction round (1 for the first; 0 when nothing was compacted). */
  round: number;
  /** Whether the kept tail starts inside a turn. */
  splitTurn: boolean;
  /** Files, commands, errors and user requests of the summarized messages, or null. */
  digest: Digest | null;
  /** What went differently than asked (nothing to compact, a recovered failure, ...). */
  warnings: string[];
}
/** Options of one `compact` or `maybeCompact` call (and of `Session.compact` / `prepare`). */
export interface CompactCallOptions {
  /** Extra instructions for the summarizer (`request.instructions`, `{instructions}`). Default: none. */
  instructions?: string;
  /** Aborts the compaction: it rejects with `ABORTED` and changes nothing. Default: none. */
  signal?: AbortSignal;
  /**
   * Compact even when the trigger does not fire (as after a provider's context-limit error).
   * Default `false`.
   */
  force?: boolean;
}

/**
 * Compacts message arrays. It keeps state between calls: a cache of the message objects it has
 * converted (by identity), its last compaction, the round number and the circuit breaker. Every
 * call takes the whole message array; only objects not seen before are converted. Free it with
 * `free()` or `using`.
 */
export declare class Compactor<M extends object = object> {
  /**
   * Validates the options (`INVALID_OPTIONS` naming the key) and applies the preset.
   * @param options Every option and its default: {@link CompactorOptions}.
   */
  constructor(options: CompactorOptions<M>);
  /** Tokens of the messages, in total, per message and by kind. No model call. */
  estimate(messages: readonly M[]): Estimate;
  /**
   * Whether the trigger fires. Only messages not seen before are converted.
   * @param options.usage The provider's usage of the last response: the count up to the last
   *   assistant message is then the provider's, and self-calibration learns from the growth of
   *   the prompt since the previous usage given (`estimate().calibration`).
   */
  check(messages: readonly M[], options?: { usage?: TokenUsage }): CheckResult;
  /**
   * A preview of what `compact` would do, without a model call.
   * @param options.usage The provider's usage of the last response (calibrates the count).
   */
  plan(messages: readonly M[], options?: { usage?: TokenUsage }): PlanPreview;
  /**
   * A copy with old tool outputs replaced by placeholders (the configured `prune` style, OpenCode's
   * when `prune` is `false`). No model call; the input is not changed.
   */
  prune<T extends M>(messages: readonly T[]): T[];
  /**
   * `trimMessages` counted with this compactor's tokenizer and format, on its identity cache: a
   * growing history converts and counts only its new messages, so trimming before every model
   * call stays cheap. Never keeps a tool result without its call. The kept messages are yours
   * (a partial one, with `allowPartial`, a copy).
   * @param options The options of `trimMessages` but `tokenizer` and `format` (the compactor's).
   */
  trim<T extends M>(messages: readonly T[], options: Omit<TrimOptions, "tokenizer" | "format">): T[];
  /**
   * Compacts now, whether or not the trigger fires. Rejects with a `CompactionError` when it
   * cannot, leaving the messages untouched (`onFailure` does not apply).
   */
  compact<T extends M>(messages: readonly T[], options?: CompactCallOptions): Promise<CompactResult<T>>;
  /**
   * Resolves to the same array below the trigger and to the compacted messages above it (fits AI
   * SDK `prepareStep`). A history that extends the last compaction's continues from it. On a
   * failed summary, does what `onFailure` says; after `maxConsecutiveFailures` failures in a row it
   * skips the summarizer until a compaction succeeds (the circuit breaker).
   */
  maybeCompact<T extends M>(messages: readonly T[], options?: CompactCallOptions): Promise<T[]>;
  /**
   * Forgets every message object seen. Each object is converted once, the first time a call sees
   * it; after changing a message object in place, call this (or pass a new object instead).
   */
  forget(): void;
  /** Releases the WebAssembly memory; any later call throws `DISPOSED`. */
  free(): void;
  /** Same as `free()`, for `using compactor = new Compactor(...)`. */
  [Symbol.dispose](): void;
}

/** A structural problem `validateMessages` found. */
export interface Violation {
  /** What is wrong. */
  kind: "orphan-result" | "result-before-call" | "unanswered-call" | "duplicate-call-id" | "duplicate-result-id" | "summary-misplaced" | "empty-message";
  /** `messages[3]` or `messages[3].content[0]`. */
  path: string;
  /** Index of the message. */
  message: number;
  /** Index of the part within the message, or null. */
  part: number | null;
  /** The tool call id involved, or null. */
  id: string | null;
  /** A sentence describing the problem. */
  detail: string;
}
/** A change `repairMessages` made; indices refer to the input. */
export type RepairAction =
  | { action: "removed-result"; message: number; id: string; reason: string }
  | { action: "removed-message"; message: number }
  | { action: "renamed-call"; message: number; from: string; to: string }
  | { action: "renamed-result"; message: number; from: string; to: string }
  | { action: "added-results"; after: number; ids: string[] }
  | { action: "cleared-summary"; message: number };
/** What `repairMessages` returns. */
export interface RepairResult<M = object> {
  /** The repaired messages (your objects where unchanged). */
  messages: M[];
  /** What was changed, in order. */
  actions: RepairAction[];
}
/** A compaction the agent recorded in its session file. Indices refer to `history`. */
export interface SessionCompaction {
  /** 1-based line of the compaction entry. */
  line: number;
  /** The entry's id (pi `id`, Claude Code `uuid`), when present. */
  id: string | null;
  /** The recorded summary text. */
  summary: string;
  /** Tokens before the compaction, as the agent recorded them. */
  tokensBefore: number | null;
  /** `"manual"` or `"auto"` when recorded. */
  trigger: string | null;
  /** The first message kept verbatim after the summary, by entry id and by index. */
  firstKeptEntryId: string | null;
  /** Index in `history` of the first message kept verbatim, or null. */
  firstKeptIndex: number | null;
  /** Messages of `history` written before the compaction entry. */
  atMessage: number;
  /** The message of `history` that carries the summary (Claude Code), if any. */
  summaryIndex: number | null;
}
/** Options of `trimMessages` (LangChain's `trimMessages`, without a model). */
export interface TrimOptions {
  /** The most tokens the kept messages may hold. Required. */
  maxTokens: number;
  /** Keep the last messages or the first. Default `"last"`. */
  strategy?: "first" | "last";
  /**
   * The kept messages start on this role ("human"/"user", "ai"/"assistant", "system", "tool").
   * Default: any.
   */
  startOn?: string | string[];
  /** The kept messages end on this role. Default: any. */
  endOn?: string | string[];
  /** Keep a leading system message whatever the budget. Default `false`. */
  includeSystem?: boolean;
  /** Keep the part of a message that fits, block by block. Default `false`. */
  allowPartial?: boolean;
  /** How tokens are counted. Default `"heuristic"`. */
  tokenizer?: Tokenizer;
  /** The messages' format. Default: detected. */
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
