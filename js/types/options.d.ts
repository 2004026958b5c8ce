// The options of the package's calls, and the names and unions they use: `new Compactor(options)`,
// a call's options, `trimMessages`, the summarizer's request and answer, the hooks' events.
// Their keys are those src/core/options accepts (tests/js/declarations.test.mjs ties them).
import type { ConversationStore } from "../stores/contract.js";

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
 * `"token-window"` keeps the longest tail within `maxTokens` (at least the last message; a cut on
 * a tool result moves back to its call): LangChain's `keep: { tokens }`.
 */
export type KeepStrategy =
  | { type: "recent-tokens"; keep: number; summarize?: boolean }
  | { type: "sliding-window"; keep: number; summarize?: boolean }
  | { type: "turn-window"; keep: number; summarize?: boolean }
  | { type: "token-budget"; maxTokens: number; summarize?: boolean }
  | { type: "token-window"; maxTokens: number; summarize?: boolean }
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
  /**
   * The request the options choose (`summaryMode`): `"continue"` on a `history` request whose
   * conversation, instruction and answer fit the window, else `"transcript"` (`system` + `prompt`).
   */
  mode: "transcript" | "continue";
  /**
   * In `"continue"` mode: your messages, in your format, as the model last saw them (Anthropic
   * messages may gain one `cache_control` marker). Send `[...conversation, { role: "user",
   * content: instruction }]` with your own system prompt and tools.
   */
  conversation?: M[];
  /** In `"continue"` mode: the summary instruction, the final user message to send after `conversation`. */
  instruction?: string;
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
   * `"split"`: the kept tail may start inside a turn, whose beginning is summarized separately
   * (with `"sliding-window"` or `"recursive"`, at least `keep` messages are kept: a cut on a tool
   * result moves back to its call); `"snap"`: the kept tail starts at a user message. Default
   * `"split"` (`"snap"` for the sliding window, turn window, token budget and recursive strategies).
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
  transcript?: TranscriptOptions;
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
  /**
   * The summary request offered first: `"transcript"` (a transcript prompt under the summarizer's
   * own system prompt, for any model) or `"continue"` (the conversation as the model last saw it,
   * then the instruction: cheapest with the same model, whose prompt cache it reads). Default: the
   * preset's agent's (`"continue"` for `claude-code`, `codex`, `opencode`), else `"transcript"`.
   */
  summaryMode?: "transcript" | "continue";
  /** Whose prompt-cache rules and prices `plan().cost` assumes. Default: the `model`'s provider, else the preset's, else Anthropic's. */
  cost?: CostOptions;
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

/** The `cost` option: the provider, its prices and the caller's cache markers. */
export interface CostOptions {
  /** Whose cache rules apply: `"anthropic"` (explicit breakpoints), `"openai"` (automatic prefix caching), `"gemini"` (implicit caching), `"none"`. */
  provider?: "anthropic" | "openai" | "gemini" | "none";
  /** Overrides single entries of the provider's price table. */
  prices?: {
    /** USD per million fresh input tokens (Anthropic 3, OpenAI and Gemini 1.25). */
    input?: number;
    /** USD per million output tokens (Anthropic 15, OpenAI and Gemini 10). */
    output?: number;
    /** A cache read as a multiple of `input` (0.1). */
    cacheRead?: number;
    /** A 5-minute cache write as a multiple of `input` (Anthropic 1.25, others 1). */
    cacheWrite5m?: number;
    /** A 1-hour cache write as a multiple of `input` (Anthropic 2, others 1). */
    cacheWrite1h?: number;
  };
  /** The shortest cacheable prefix (Anthropic 1,024 for Sonnet, OpenAI 1,024, Gemini 2.5 2,048). */
  minCacheTokens?: number;
  /** The TTL of your Anthropic cache markers. Default `"5m"` (`claude-code`: `"1h"`). */
  cacheTtl?: "5m" | "1h";
}

/** How messages are written into the summarizer's transcript (the `transcript` option). */
export interface TranscriptOptions {
  /** Tool outputs longer than this many characters are cut in the transcript. Default 2,000. */
  toolOutputChars?: number;
  /** Include reasoning parts. Default `false`. */
  includeReasoning?: boolean;
  /** Only these tools appear: names, or prefixes ending in `*` (`"mcp_*"`). Default: every tool. */
  toolAllow?: string[];
  /**
   * Keep only what the summary prompt needs from tool calls and results: a successful result over
   * 500 characters keeps its first 300 and last 150 (at line breaks) with `[... N characters cut]`
   * between; a repeated result of 200 or more is written `(same output as [n])`; a string in a
   * tool call's input keeps its first 300 characters, an edit's or write's body (`content`,
   * `new_string`, `oldText`, ...) its first 80. Errors, user and assistant text are never cut.
   * `false` gives the transcript without it. The `compaction-layer` preset ignores it (its
   * transcript keeps that preset's own layout). Default `true`.
   */
  trim?: boolean;
}
