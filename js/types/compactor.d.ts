// The `Compactor` class (src/wasm/compactor.rs and the store wrapper js/stored-compactor.mjs).
import type { CompactCallOptions, CompactorOptions, TrimOptions } from "./options.js";
import type { CheckResult, CompactResult, Estimate, PlanPreview, TokenUsage } from "./results.js";

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
