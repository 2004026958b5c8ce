// Types of the file store (js/stores/file.mjs): one JSONL session log per conversation in a
// directory, with a sidecar index, for CLIs and single-process agents (several processes on one
// machine are safe).
import type { ConversationStore } from "./contract.js";

/** Options of `fileStore`. */
export interface FileStoreOptions {
  /**
   * The directory of the conversations' files (created when missing): per conversation
   * `<name>.jsonl` (the session log, readable by `Session.fromJSONL`), `<name>.idx` (entry offsets
   * and ids), `<name>.state` (the commit point), `<name>.lease` and, while written, `<name>.lock`.
   */
  dir: string;
  /** How long an append or a lease call waits for a conversation's lock before it rejects (`code: "LOCK_TIMEOUT"`). Default 10 000 ms. */
  lockTimeoutMs?: number;
  /**
   * Age after which a lock is taken to be left by a crash and broken (a lock whose process is gone
   * is broken at once). Must exceed the longest append. Default 30 000 ms.
   */
  staleLockMs?: number;
  /** The clock leases expire by (tests). Default `Date.now`. */
  now?: () => number;
}

/** A store keeping each conversation in a JSONL file under `options.dir`. */
export declare function fileStore(options: FileStoreOptions): ConversationStore;

/**
 * The base name of a conversation's files: the id with every byte but `a-z 0-9 _ -` written
 * `%xx` (`decodeURIComponent` reverses it), or `+<sha256 hex>` for an id too long for a file name.
 */
export declare function conversationFileName(conversationId: string): string;
