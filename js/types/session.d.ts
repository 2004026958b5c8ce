// The `Session` class (src/wasm/session.rs; `Session.open` is declared by js/index.d.ts), its
// options and what its calls return.
import type { CompactCallOptions, CompactorOptions, MessageFormat, WorkstreamState } from "./options.js";
import type { Calibration, CheckResult, CompactResult, PlanPreview, TokenUsage } from "./results.js";

/** Options of a `Session`: every `Compactor` option, plus the session's own. */
export interface SessionOptions<M = object> extends Omit<CompactorOptions<M>, "store" | "conversationId" | "leaseMs" | "compactionWaitMs" | "holder"> {
  /** The session's id, written in the log header. Default: 16 random hex digits. */
  sessionId?: string;
  /**
   * Start summarizing in the background once the context reaches this fraction of the usable
   * window (window − reserve − safety margin), e.g. `0.75`. The conversation goes on meanwhile;
   * `prepare()` waits only when the trigger is reached before the summary is ready. Default: off
   * (`false`).
   */
  background?: number | false;
  /**
   * `Session.fromJSONL` only: refuse a torn last line (`INVALID_INPUT` naming it) instead of
   * loading up to the last complete line. Default: `false`.
   */
  strict?: boolean;
}
/** `check()` of a session: the trigger state, and whether the background threshold is passed. */
export interface SessionCheck extends CheckResult {
  /** Past the background threshold but below the trigger. */
  background: boolean;
  /** What self-calibration has learned from `recordUsage` (kept in the log with each usage). */
  calibration: Calibration;
}
/**
 * A prompt-cache point (the `block-pipeline` preset's rules): the tail (the last message), the
 * end of the previous turn, the pre-tail (the last message of round N − 4).
 */
export interface CachePointInfo {
  /** Index into the rendered `messages`. */
  index: number;
  /** Which rule placed it. */
  kind: "tail" | "previous-turn" | "pre-tail";
}
/** The live context. `messages` are your own objects where unchanged. */
export interface RenderResult<M = object> {
  /** The messages to send: system messages, the summary, pinned messages, the kept tail. */
  messages: M[];
  /** Tokens of the context (calibrated by the latest recorded usage). */
  tokens: number;
  /** Indices into `messages`, most important first. */
  cachePoints: CachePointInfo[];
  /** Index of the summary message, or null. */
  summaryIndex: number | null;
  /** The messages' format, or null before the first message. */
  format: Exclude<MessageFormat, "auto"> | null;
  /**
   * From `prepare()`: the error of a background compaction that failed since the previous
   * `prepare()` (it changed nothing; the next one past the trigger compacts in the foreground).
   */
  backgroundError?: unknown;
}
/** Options of `prepare()`: those of `compact()` and `render()`, and the clock of TTL pruning. */
export interface PrepareOptions extends CompactCallOptions, RenderOptions {
  /**
   * The time TTL pruning measures tool results' age against, in milliseconds since the epoch.
   * Default: `Date.now()`.
   */
  now?: number;
  /**
   * `false`: this call starts no background compaction, even past the `background` threshold
   * (a store-backed session starts its own, under the store's lease). Default `true`.
   */
  background?: boolean;
}
/** Options of `render()` (and of `prepare()`). */
export interface RenderOptions {
  /**
   * Anthropic format only: put `cache_control` markers on the cache points, never more than the
   * API's 4 per request together with markers already in your messages. Default `true`.
   */
  cacheControl?: boolean;
  /** Cache breakpoints you use elsewhere in the request (system prompt, tools). Default 0. */
  reservedCachePoints?: number;
}
/** An entry of the session log, as `Session.entries()` lists it. */
export type SessionEntry = SessionLogEntry | SessionCompactionEntry;
/** A log entry other than a compaction. */
export interface SessionLogEntry {
  /** The entry's id. */
  id: string;
  /** The id of the entry before it, or null for the first. */
  parentId: string | null;
  /** What the entry records. */
  type: "message" | "prune" | "branch" | "usage" | "note" | "notesCompacted";
}
/** A compaction entry, with the numbers it recorded. */
export interface SessionCompactionEntry {
  /** The entry's id. */
  id: string;
  /** The id of the entry before it, or null for the first. */
  parentId: string | null;
  /** A compaction. */
  type: "compaction";
  /** The summary without its framing, or null when the strategy dropped messages without one. */
  summary: string | null;
  /** The first message entry kept verbatim after the summary, or null (only what follows). */
  firstKeptEntryId: string | null;
  /** Tokens of the live context before the compaction. */
  tokensBefore: number;
  /** Estimated tokens of the live context right after it. */
  tokensAfter: number;
  /** 1 for the first summary, one more for each that folds in an earlier one. */
  round: number;
}
/** What `Session.compact()` resolves to: the `Compactor` result plus the log entry. */
export interface SessionCompactResult<M = object> extends CompactResult<M> {
  /** The compaction entry's id, or null when nothing was compacted. */
  entryId: string | null;
  /** The workstream state after the compaction, when the summarizer keeps one. */
  state?: WorkstreamState | null;
}
/**
 * A stateful conversation: an append-only JSONL log (messages, compactions, prunes, branch points,
 * usage) and the live context built from it. Messages are converted once, when appended, so
 * `check()` costs O(1) and `append()` O(new messages) however long the history.
 */
export declare class Session<M extends object = object> {
  /**
   * A new, empty session. Validates the options like `new Compactor` (`INVALID_OPTIONS`).
   * @param options Every `Compactor` option, plus `sessionId` and `background`.
   */
  constructor(options: SessionOptions<M>);
  /**
   * Reads a log written by `toJSONL()` / `flush()`; `INVALID_INPUT` naming `lines[i]` for a bad
   * line, a parentId cycle, a missing parent or a compaction naming no entry. A torn last line is
   * left out and reported in `tornLine` (refused with `strict: true`); `""` is an empty session.
   * @param text The log, or its pieces: an iterable of strings (an array, a generator reading a
   *   file), cut anywhere, even between the halves of a surrogate pair. Each line is read as soon
   *   as its newline arrives, so the whole text is never held.
   */
  static fromJSONL<M extends object = object>(text: string | Iterable<string>, options: SessionOptions<M>): Session<M>;
  /**
   * Imports a pi or Claude Code session file, keeping the compactions the agent recorded. An
   * incomplete last line is left out and named to `read.onWarning` (default `console.warn`);
   * `read.strict` refuses it. A file of the other agent is `INVALID_INPUT`.
   * @param text The file, or its pieces: an iterable of strings cut anywhere, read a line at a time
   *   as for `fromJSONL`.
   */
  static fromSessionFile<M extends object = object>(text: string | Iterable<string>, source: "pi" | "claude-code", options: SessionOptions<M>, read?: { strict?: boolean; onWarning?: (warning: string) => void }): Session<M>;
  /** Appends a message or messages; returns their entry ids. Costs O(new messages). */
  append(messages: M | readonly M[]): string[];
  /**
   * Records the provider's usage of the latest response: the count up to the latest assistant
   * message is the provider's from now on, and self-calibration learns from the growth of the
   * prompt since the previous usage (`check().calibration`). Returns the usage entry's id.
   */
  recordUsage(usage: TokenUsage): string;
  /** The trigger state in O(1), and whether the background threshold is passed. */
  check(): SessionCheck;
  /** The live context, with cache points. No model call. */
  render(options?: RenderOptions): RenderResult<M>;
  /**
   * What compacting now would do, as `Compactor.plan()` reports it (`cost` included), over the live
   * context (indices refer to `render().messages` without the memory block). No model call, no
   * change.
   */
  plan(): PlanPreview;
  /**
   * Compacts now (waits for a compaction already running). Messages appended while the summary is
   * written stay after it; rejects with `CONFLICT` if the log changed otherwise, changing nothing.
   */
  compact(options?: CompactCallOptions): Promise<SessionCompactResult<M>>;
  /**
   * The render pipeline before a request: TTL pruning (when `prune.style` is `"ttl"`), compaction
   * when the trigger fires (or `force`), a background compaction past the `background` threshold,
   * memory-block condensing, then `render`.
   */
  prepare(options?: PrepareOptions): Promise<RenderResult<M>>;
  /** The torn last line `fromJSONL` left out: its 1-based number and why it did not parse. */
  readonly tornLine: { line: number; error: string } | undefined;
  /** The whole log. `Session.fromJSONL(s.toJSONL()).toJSONL()` is byte-identical. */
  toJSONL(): string;
  /**
   * A part of `toJSONL()`, to write a long log without holding it whole: the header (when `from`
   * is 0) and the lines of the entries from `from` on, up to about `maxBytes` of UTF-8 (default
   * 1 MiB; at least one line). `next` is the entry the next part starts at, `null` once the log is
   * written: the parts from 0 on, joined, are `toJSONL()`.
   * @param from The entry to start at (0: the header first).
   * @param maxBytes About how many bytes a part holds.
   */
  toJSONLPart(from: number, maxBytes?: number): { text: string; next: number | null };
  /** The log lines added since the previous `flush()` (the header the first time). */
  flush(): string;
  /**
   * A new session from an entry: before a compaction it undoes it, after one it keeps it; `null`
   * branches before the first entry (an empty context, as pi's fork before the first message).
   */
  branch(entryId: string | null): Session<M>;
  /** Every entry of the log, oldest first: `{ id, parentId, type }`. */
  entries(): SessionEntry[];
  /** Adds a note to the memory block; `prepare()` condenses the oldest 10 once there are 15. */
  addNote(text: string): string;
  /** The memory block; put `text` in your system prompt. */
  memory(): { summary: string | null; notes: string[]; text: string | null };
  /** Grows with every change of the log. */
  readonly version: number;
  /** True while a compaction (foreground or background) runs. */
  readonly isCompacting: boolean;
  /** The session's id (null until the first message). */
  readonly id: string | null;
  /** Releases the WebAssembly memory; any later call throws `DISPOSED`. */
  free(): void;
  /** Same as `free()`, for `using session = new Session(...)`. */
  [Symbol.dispose](): void;
}
