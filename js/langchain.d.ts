// Types of `context-compaction/langchain`: the package's API over LangChain.js messages. The build
// copies this file to pkg/types/langchain.d.mts, so that ES module consumers see LangChain's ES
// module types and CommonJS ones its CommonJS types.
import type { BaseMessage } from "@langchain/core/messages";
import type { AnyAgentMiddleware } from "langchain";
import type {
  CheckResult,
  CompactCallOptions,
  CompactResult,
  CompactorOptions,
  Estimate,
  PlanPreview,
  TokenUsage,
  TrimOptions,
} from "context-compaction";

/**
 * A `Compactor` over LangChain messages (`BaseMessage` objects or their serialized form). Kept
 * messages are your own objects; the summary is a real `SystemMessage` or `HumanMessage` (by the
 * preset's summary role) and a changed message (a pruned tool output) a new message of its class.
 * The format is detected; the options are those of the main entry's `Compactor`.
 */
export declare class Compactor {
  /**
   * Validates the options (`INVALID_OPTIONS` naming the key) and applies the preset.
   * @param options The main entry's `CompactorOptions`, with every default documented there.
   */
  constructor(options: CompactorOptions<BaseMessage>);
  /** Tokens of the messages, in total, per message and by kind. No model call. */
  estimate(messages: readonly BaseMessage[]): Estimate;
  /**
   * Whether the trigger fires.
   * @param options.usage The provider's usage of the last response (calibrates the count).
   */
  check(messages: readonly BaseMessage[], options?: { usage?: TokenUsage }): CheckResult;
  /**
   * A preview of what `compact` would do, without a model call.
   * @param options.usage The provider's usage of the last response (calibrates the count).
   */
  plan(messages: readonly BaseMessage[], options?: { usage?: TokenUsage }): PlanPreview;
  /** A copy with old tool outputs replaced by placeholders; a changed one is a new `ToolMessage`. */
  prune(messages: readonly BaseMessage[]): BaseMessage[];
  /**
   * `trimMessages` on this compactor's counting and identity cache: only messages not seen before
   * are converted and counted. The kept messages are yours; a partial one is a new message.
   * @param options LangChain's `trimMessages` options but `tokenCounter` (the compactor's tokenizer).
   */
  trim(messages: readonly BaseMessage[], options: Omit<TrimOptions, "tokenizer" | "format">): BaseMessage[];
  /** Compacts now; rejects with a `CompactionError` and changes nothing when it cannot. */
  compact(messages: readonly BaseMessage[], options?: CompactCallOptions): Promise<CompactResult<BaseMessage>>;
  /** Compacts when the trigger says so; the same array when not. */
  maybeCompact(messages: readonly BaseMessage[], options?: CompactCallOptions): Promise<BaseMessage[]>;
  /** Forgets every message object seen; call it after changing a message object in place. */
  forget(): void;
  /** Releases the WebAssembly memory; any later call throws `DISPOSED`. */
  free(): void;
  /** Same as `free()`, for `using compactor = new Compactor(...)`. */
  [Symbol.dispose](): void;
}

/** Options of LangChain's `trimMessages` that this one takes. */
export interface LangChainTrimOptions extends Omit<TrimOptions, "tokenizer"> {
  /**
   * How tokens are counted: `"heuristic"` (default), `"o200k_base"` or `"cl100k_base"`. A counting
   * function or a model is refused (`INVALID_OPTIONS`): the package counts tokens itself.
   */
  tokenCounter?: "heuristic" | "o200k_base" | "cl100k_base";
  /** The main entry's name for `tokenCounter`; `tokenCounter` wins when both are given. Default `"heuristic"`. */
  tokenizer?: TrimOptions["tokenizer"];
}

/**
 * LangChain's `trimMessages` without a model call: the last (or first) messages within
 * `maxTokens`, never a tool message without the AI message that called it. `startOn` / `endOn`
 * take LangChain's type names (`"human"`, `"ai"`, `"system"`, `"tool"`).
 */
export declare function trimMessages(messages: readonly BaseMessage[], options: LangChainTrimOptions): BaseMessage[];

/** LangChain messages from their plain or serialized form; `BaseMessage` objects pass as they are. */
export declare function toBaseMessages(messages: readonly object[]): BaseMessage[];

/** A context size as LangChain's `summarizationMiddleware` takes it. */
export interface ContextSize {
  /** A fraction of the model's input window (its profile's `maxInputTokens`, or `contextWindow`). */
  fraction?: number;
  /** A number of tokens. */
  tokens?: number;
  /** A number of messages. */
  messages?: number;
}

/** The chat model that writes summaries: anything with LangChain's `invoke`. */
export interface SummaryChatModel {
  /** Called with a system and a human message; the answer's text is the summary. */
  invoke(messages: BaseMessage[], options?: { signal?: AbortSignal }): Promise<{ content: unknown; text?: string }>;
  /** The model's profile; `maxInputTokens` gives the context window when `contextWindow` is not set. */
  profile?: { maxInputTokens?: number };
}

/**
 * Options of {@link compactionMiddleware}: LangChain's `summarizationMiddleware` names (`model`,
 * `trigger`, `keep`, `summaryPrompt`) next to every `Compactor` option. Give `model` (a chat model,
 * or a `"provider:model"` name for `initChatModel`) or `summarize` to summarize a transcript with
 * another model; give neither and the agent's own model writes the summary in the model call,
 * continuing the conversation under the agent's system prompt and tools (`summaryMode:
 * "continue"` by default; give `contextWindow`).
 */
export interface CompactionMiddlewareOptions extends Omit<Partial<CompactorOptions<BaseMessage>>, "model" | "trigger" | "conversationId"> {
  /**
   * With `store`: the conversation whose compactions are saved, or a function naming it for each
   * model call from the agent's state and runtime (for example a thread id); a call it names none
   * for is compacted as without a store.
   */
  conversationId?: string | ((state: { messages: BaseMessage[] }, runtime: unknown) => string | undefined);
  /**
   * The model that writes the summary: a chat model, or a `"provider:model"` name for
   * `initChatModel` (whose model name also looks up the context window). Its profile gives the
   * context window. Default: none (then `summarize` is needed).
   */
  model?: SummaryChatModel | string;
  /**
   * When to compact, compared as `summarizationMiddleware` compares: all keys of one size must hold
   * (`messages >= N`, `tokens >= N`, `tokens >= floor(window × fraction)`); any size of an array.
   * Default: the `Compactor` trigger (or the `preset`'s).
   */
  trigger?: ContextSize | ContextSize[];
  /**
   * What to keep verbatim, exactly one key: the last `messages` (more only when the cut would
   * fall on tool messages: it moves back to their AI message), or the longest tail within `tokens`
   * or a `fraction` of the window (`INVALID_OPTIONS` when the window is not known). Default:
   * `keepRecentTokens` (or the `preset`'s).
   */
  keep?: ContextSize;
  /** The system prompt of the summary call made with `model`. Default: the built-in (or the `preset`'s). */
  summaryPrompt?: string;
}

/**
 * A middleware for LangChain's `createAgent` taking its `summarizationMiddleware`'s options with
 * their meaning: before each model call the agent's messages are compacted with this package's guarantees (never a tool
 * message without its call, turns respected, the recent tail kept) and the state replaced by the
 * compacted messages. Needs the `langchain` package.
 */
export declare function compactionMiddleware(options: CompactionMiddlewareOptions): AnyAgentMiddleware;
