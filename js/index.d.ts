// Public types of `context-compaction`. What the WebAssembly module exports is declared by the
// declarations in js/types; this file adds what the JS entry points define. The build writes an ES
// module and a CommonJS copy of it (pkg/types/esm/index.d.mts, pkg/types/cjs/index.d.cts).
import type { Compactor, CompactorOptions, EncodingName, Session, SessionOptions, SessionCompactResult, RenderResult, PrepareOptions, CompactCallOptions } from "./types/index.js";
import type { ConversationStore } from "./stores/contract.js";

export * from "./types/index.js";
export type { AppendBatch, AppendResult, ConversationStore, LiveSet, StoredLine, StoredLog } from "./stores/contract.js";

/** The stable codes of every failure. */
export type ErrorCode =
  | "INVALID_INPUT"
  | "INVALID_OPTIONS"
  | "SUMMARIZER_FAILED"
  | "SUMMARY_EMPTY"
  | "NO_PROGRESS"
  | "ABORTED"
  | "TIMEOUT"
  | "CONFLICT"
  | "CANNOT_COMPACT"
  | "ENCODING_UNAVAILABLE"
  | "HOOK_FAILED"
  | "INTERNAL"
  | "DISPOSED"
  | "STORE_FAILED";

/** Every error the package throws or rejects with. */
export declare class CompactionError extends Error {
  /**
   * An error with its code; the package makes these itself, you may make them in tests or hooks.
   * @param message What happened, in words.
   * @param code The stable code (see {@link ErrorCode}).
   * @param path For bad input or options: the offending field.
   * @param cause The original error (a summarizer's rejection, an abort reason, a trap).
   */
  constructor(message: string, code: ErrorCode, path?: string, cause?: unknown);
  /** Always `"CompactionError"`. */
  readonly name: "CompactionError";
  /** What went wrong, stable across versions. */
  readonly code: ErrorCode;
  /** For bad input: the offending field, e.g. `messages[3].content[0].toolCallId`. */
  readonly path?: string;
}

/** The part of a fetch `Response` that `loadEncoding` reads. */
export interface ResponseLike {
  /** Whether the request succeeded (a 2xx status). */
  readonly ok: boolean;
  /** The HTTP status, named in the error when `ok` is false. */
  readonly status: number;
  /** The body: the rank table's bytes. */
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** What a rank-table source function may give: a Response, the bytes or the text of the table. */
export type RankTable = ResponseLike | ArrayBuffer | Uint8Array | string;

/**
 * Where `loadEncoding` reads a rank table (the package's `.ranks` file or OpenAI's `.tiktoken`
 * file): its bytes, a URL (relative URLs resolve against the package's own table), or a function
 * called with the package's default URL.
 */
export type EncodingSource =
  | Uint8Array
  | ArrayBuffer
  | URL
  | string
  | ((defaultUrl: URL) => RankTable | Promise<RankTable>);

/**
 * Loads the rank table of an exact encoding. Without `source`, the table shipped with the package is
 * used (Node reads it from disk; browsers fetch it from beside the module). Resolves once counting
 * with `encoding` works; rejects with `ENCODING_UNAVAILABLE` or `INVALID_INPUT`.
 */
export declare function loadEncoding(encoding: EncodingName, source?: EncodingSource): Promise<void>;

/** Options of {@link compactionMiddleware}. */
export interface CompactionMiddlewareOptions {
  /**
   * When the provider answers with a context-limit error ({@link isContextOverflowError}), compact
   * the prompt by force and send it once more (one retry, never a loop). Default `true`.
   */
  recoverOverflow?: boolean;
}

/** The call parameters the middleware reads: the provider prompt and the call's abort signal. */
export interface PromptParams {
  /** The provider prompt (`LanguageModelV3Prompt`): the messages the call sends. */
  prompt: object[];
  /** The call's abort signal; it aborts the compaction too. */
  abortSignal?: AbortSignal;
}

/**
 * An AI SDK language-model middleware (`LanguageModelV3Middleware`): pass it to
 * `wrapLanguageModel({ model, middleware })`.
 */
export interface CompactionMiddleware {
  /** The AI SDK middleware specification it implements. */
  readonly specificationVersion: "v3";
  /** Compacts `params.prompt` when the compactor's trigger says so; resolves to the params to send. */
  transformParams<P extends PromptParams>(options: { type: "generate" | "stream"; params: P; model: unknown }): Promise<P>;
  /** Sends; after a context-limit error, compacts by force and sends once more. */
  wrapGenerate<P extends PromptParams, R>(options: {
    doGenerate: () => PromiseLike<R>;
    doStream: () => PromiseLike<unknown>;
    params: P;
    model: { doGenerate(params: P): PromiseLike<R> };
  }): Promise<R>;
  /** Streams; after a context-limit error at the start, compacts by force and streams once more. */
  wrapStream<P extends PromptParams, S>(options: {
    doGenerate: () => PromiseLike<unknown>;
    doStream: () => PromiseLike<S>;
    params: P;
    model: { doStream(params: P): PromiseLike<S> };
  }): Promise<S>;
}

/**
 * The AI SDK middleware: every `generateText` / `streamText` call through the wrapped model has its
 * prompt compacted first, with the same decisions as `compactor.maybeCompact` (trigger, safe cut,
 * your summarizer, the failure policy). A history that keeps growing is summarized once: later
 * calls continue from the compactor's last compaction. Kept messages, and any binary content in
 * them, are passed on as they were.
 *
 * Without a `summarize` in the options, the wrapped model writes the summary itself: the same
 * model, so the request continues the conversation (the call's own prompt, tools and settings, then
 * the summary instruction; `summaryMode: "continue"` unless the options say otherwise) and its
 * prefix is read from the provider's prompt cache. A request that would not fit the window, or a
 * piece that is not the whole history, goes to the same model as the transcript prompt. Give
 * `summarize` (with `summaryMode: "transcript"`) to summarize with a different, cheaper model.
 *
 * @param compactor A `Compactor`, or the options to make one (its `summarize` receives provider
 *   prompt messages).
 * @param options See {@link CompactionMiddlewareOptions}.
 * @example
 * const model = wrapLanguageModel({
 *   model: openai("gpt-4o"),
 *   middleware: compactionMiddleware({ model: "gpt-4o", summarize }),
 * });
 */
export declare function compactionMiddleware<M extends object>(
  compactor: Compactor<M> | CompactorOptions<M> | PerConversationOptions<M>,
  options?: CompactionMiddlewareOptions,
): CompactionMiddleware;

/**
 * Options of a middleware that serves many conversations: each call's conversation is named by
 * `conversationId(params)` (for example from `providerOptions` you pass to `generateText`), and its
 * compactions are saved in `store` under that id. A call it names none for is compacted as without
 * a store.
 */
export type PerConversationOptions<M extends object = object> = Omit<CompactorOptions<M>, "conversationId"> & {
  /** The store that keeps every conversation's compactions. */
  store: ConversationStore;
  /** The conversation of a call, read from its params. */
  conversationId: (params: PromptParams & { providerOptions?: Record<string, Record<string, unknown>> }) => string | undefined;
};

/**
 * A store that keeps every conversation in this process's memory: the reference implementation of
 * the store contract, for tests and for apps that persist elsewhere.
 * @param options `now`: the clock leases expire by (tests).
 */
export declare function memoryStore(options?: { now?: () => number }): ConversationStore;

/** Options of `Session.open`: the Session's own, plus how it shares the conversation. */
export type StoredSessionOptions<M extends object = object> = SessionOptions<M> & {
  /** How long a compaction lease lasts; renewed every third of it while the summary is written. Default 300,000 (5 minutes). */
  leaseMs?: number;
  /** How long `prepare()` and `compact()` wait for another process's compaction. Default 60,000. */
  compactionWaitMs?: number;
  /** This session's name as a lease holder. Default: the conversation id and a random tag. */
  holder?: string;
};

/** What `commit()` did. */
export interface CommitResult {
  /** The store's version after the commit. */
  version: number;
  /** Entries this session appended. */
  appended: number;
  /** Entries other processes had stored, merged before this session's. */
  merged: number;
  /** Pending entries dropped because another process's compaction or prune came first. */
  dropped: { id: string; type: string }[];
}

/**
 * A Session whose log lives in a store shared by processes (`Session.open`). `append`,
 * `recordUsage` and `addNote` change it locally; `commit()` writes what is new with a
 * compare-and-set on the store's version, merging what others stored first. `compact()` and
 * `prepare()` commit, take the conversation's compaction lease (waiting while another process
 * holds it), and commit the compaction; a compaction that lost the race to another process's
 * rejects with `CONFLICT` and writes nothing.
 */
export interface StoredSession<M extends object = object> extends Session<M> {
  /** The conversation's id in the store. */
  readonly conversationId: string;
  /** The store's version this session has seen. */
  readonly storeVersion: number;
  /** Writes what the store does not hold (merging others' entries first); `STORE_FAILED` if the store fails. */
  commit(): Promise<CommitResult>;
  /** Reads and merges what other processes stored since this session's version. */
  sync(): Promise<{ merged: number; dropped: { id: string; type: string }[] }>;
  /** The holder of the conversation's compaction lease (any process), or `null`. */
  compactionHolder(): Promise<string | null>;
  compact(options?: CompactCallOptions): Promise<SessionCompactResult<M>>;
  prepare(options?: PrepareOptions): Promise<RenderResult<M>>;
}

declare module "./types/session.js" {
  namespace Session {
    /**
     * Opens conversation `conversationId` of `store`: its live context from the latest compaction
     * on (the load costs O(live context)), or a new, empty conversation.
     * @example
     * const session = await Session.open(sqliteStore({ path: "chats.db" }), chatId, { contextWindow: 200_000, summarize });
     * session.append(userMessage);
     * const { messages } = await session.prepare();
     * session.append(reply);
     * await session.commit();
     */
    function open<M extends object = object>(
      store: ConversationStore,
      conversationId: string,
      options: StoredSessionOptions<M>,
    ): Promise<StoredSession<M>>;
  }
}
