// Public types of `context-compaction`. The functions implemented in Rust are declared by the
// generated bindings; this file adds what the JS entry points define.
import type { EncodingName } from "../pkg/node/context_compaction.js";

export * from "../pkg/node/context_compaction.js";

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
  | "DISPOSED";

/** Every error the package throws or rejects with. */
export declare class CompactionError extends Error {
  constructor(message: string, code: ErrorCode, path?: string, cause?: unknown);
  readonly name: "CompactionError";
  /** What went wrong, stable across versions. */
  readonly code: ErrorCode;
  /** For bad input: the offending field, e.g. `messages[3].content[0].toolCallId`. */
  readonly path?: string;
}

/** The part of a fetch `Response` that `loadEncoding` reads. */
export interface ResponseLike {
  readonly ok: boolean;
  readonly status: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** What a rank-table source function may give: a Response, the bytes or the text of the table. */
export type RankTable = ResponseLike | ArrayBuffer | Uint8Array | string;

/**
 * Where `loadEncoding` reads a `.tiktoken` rank table: its bytes, a URL (relative URLs resolve
 * against the package's own table), or a function called with the package's default URL.
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
