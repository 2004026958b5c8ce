// What the package's calls return: counts, checks, plans, compactions, validation and repair,
// and the usage objects it reads. tests/js/declarations.test.mjs compares each interface's fields
// with what the calls return.

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
/** One request mode's expected cost. */
export interface ModeCost {
  /** Input tokens at the full price. */
  fresh: number;
  /** Input tokens read from the prompt cache. */
  cacheRead: number;
  /** Input tokens written to the cache (`cacheWrite5m + cacheWrite1h`). */
  cacheWrite: number;
  /** Of those, written to 5-minute entries (Anthropic). */
  cacheWrite5m: number;
  /** Of those, written to 1-hour entries (Anthropic). */
  cacheWrite1h: number;
  /** The input in fresh-token equivalents (rounded). */
  inputEquivalents: number;
  /** The summarizer's output budget. */
  outputTokens: number;
  /** USD at the price table, the whole output budget spent. */
  dollars: number;
}
/** What compacting now costs in each request mode (`plan().cost`). */
export interface CompactionCost {
  /** Whose cache rules and prices the numbers assume. */
  provider: "anthropic" | "openai" | "gemini" | "none";
  /** The mode the options choose. */
  mode: "transcript" | "continue";
  /** The conversation continued with the summary instruction. */
  continue: ModeCost;
  /** The transcript prompt under the summarizer's system prompt. */
  transcript: ModeCost;
}
/** What `plan()` returns: a preview of a compaction. Indices refer to the messages given to `plan`. */
export interface PlanPreview {
  /** The expected cost of compacting now, in each request mode; null when it cannot be estimated. */
  cost: CompactionCost | null;
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
  /**
   * Hidden blocks (the `block-pipeline` preset's design), when there are some: the parts of the
   * summarized messages that a prune hid behind a replacement text.
   */
  hidden?: HiddenPart[];
}
/** A part hidden behind a replacement text (see `Digest.hidden`). */
export interface HiddenPart {
  /** A Compactor's compaction: the message's index in the array compacted. */
  message?: number;
  /** A Session's compaction entry: the message's log entry. */
  entryId?: string;
  /** The part's index in the message. */
  part: number;
  /** The tool it belongs to, when known. */
  tool: string | null;
  /** The replacement text of a tool result's output. */
  output?: string;
  /** The replacement of a tool call's input. */
  input?: unknown;
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
