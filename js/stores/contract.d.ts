// The store contract: what `Session.open` and the stateless path need from a database.
// Every store of the package (memory, file, sqlite, postgres, redis, indexeddb) implements it, and
// tests/js/stores/conformance.mjs holds each of them to it.

/** One entry of a conversation's log: its entry id and its JSONL line (no newline). */
export interface StoredLine {
  /** The entry id (unique within the conversation). */
  readonly id: string;
  /** The entry as one line of JSON. */
  readonly line: string;
}

/**
 * Which lines rebuild the live context: the lines of `carry` (entries before `from` that the
 * context still needs: system and pinned messages, the latest calibration, the memory block), then
 * every line from entry `from` on. `from: null` means from the first line.
 */
export interface LiveSet {
  /** The first entry of the contiguous live range, or `null` for the whole log. */
  readonly from: string | null;
  /** Entries before `from` that the live context needs, in log order. */
  readonly carry: readonly string[];
}

/** A commit: lines appended whole, or not at all. */
export interface AppendBatch {
  /** The session's header line; required (and only read) when the conversation is created. */
  readonly header?: string;
  /** The new entries, in order. */
  readonly lines: readonly StoredLine[];
  /** The live set after these lines; absent keeps the previous one. */
  readonly live?: LiveSet;
}

/** The conversation's header line, lines and version. */
export interface StoredLog {
  /** The header line. */
  readonly header: string;
  /** Entry lines, in log order. */
  readonly lines: readonly string[];
  /** The number of entry lines in the whole log: what `append` compares. */
  readonly version: number;
}

/** The result of `append`. */
export type AppendResult =
  | { readonly ok: true; readonly version: number }
  | { readonly ok: false; readonly version: number };

/**
 * Append-only lines per conversation with a version for compare-and-set, and a lease for
 * compaction.
 */
export interface ConversationStore {
  /** The header and the live lines (O(live context), never O(history)); `null` when absent. */
  load(conversationId: string): Promise<StoredLog | null>;
  /**
   * Appends `batch.lines` if the log holds exactly `expectedVersion` lines (0 creates the
   * conversation, with `batch.header`). Commits every line or none; on a version mismatch returns
   * `{ ok: false, version }` with the current version and writes nothing.
   */
  append(conversationId: string, batch: AppendBatch, expectedVersion: number): Promise<AppendResult>;
  /** The lines after the first `fromVersion` (0: the whole log, for audit and branching). */
  read(conversationId: string, fromVersion: number): Promise<StoredLog | null>;
  /**
   * Takes or renews the compaction lease for `holder` for `ttlMs`; true when `holder` holds it
   * now. Another holder's lease is taken only once it has expired.
   */
  acquireLease(conversationId: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up, if `holder` holds it. */
  releaseLease(conversationId: string, holder: string): Promise<void>;
  /** The holder of an unexpired lease, or `null`. */
  leaseHolder(conversationId: string): Promise<string | null>;
  /** Releases the store's own resources (connections it opened itself). */
  close?(): Promise<void>;
}
