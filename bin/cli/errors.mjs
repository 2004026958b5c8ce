// Exit codes and the one way a failure is reported (stderr, and a JSON object with --json).

export const EXIT = { OK: 0, INPUT: 1, USAGE: 2, SUMMARIZER: 3 };

/** The summarizer's failures: exit 3, nothing written. */
const SUMMARIZER_CODES = new Set(["SUMMARIZER_FAILED", "SUMMARY_EMPTY", "TIMEOUT", "NO_PROGRESS", "ABORTED"]);

/** A failure the CLI reports itself: a message, an exit code, and the library's code and path. */
export class CliError extends Error {
  constructor(message, exitCode, { code = null, path = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "CliError";
    this.exitCode = exitCode;
    this.code = code;
    this.path = path;
  }
}

/** A command-line mistake: exit 2. */
export class UsageError extends CliError {
  constructor(message, command = null) {
    super(message, EXIT.USAGE, { code: "USAGE" });
    this.name = "UsageError";
    this.command = command;
  }
}

/** The exit code of any error: the CLI's own, or a CompactionError's by its code. */
export function exitCodeOf(error) {
  if (error instanceof CliError) return error.exitCode;
  if (error?.code === "INVALID_OPTIONS") return EXIT.USAGE;
  if (SUMMARIZER_CODES.has(error?.code)) return EXIT.SUMMARIZER;
  return EXIT.INPUT;
}

/** `lines[4].message.role` (a session log's 0-based path) → `line 5.message.role`. */
function displayPath(path) {
  if (typeof path !== "string") return null;
  return path.replace(/^lines\[(\d+)\]/, (_, i) => `line ${Number(i) + 1}`);
}

/** `{ code, path, line, message }` of an error, its message without a leading "line N: ". */
export function describeError(error) {
  const code = typeof error?.code === "string" ? error.code : null;
  const path = displayPath(error?.path ?? null);
  const lineMatch = /^line (\d+)/.exec(path ?? "") ?? /^line (\d+)\b/.exec(error?.message ?? "");
  let message = String(error?.message ?? error);
  if (lineMatch && message.startsWith(`line ${lineMatch[1]}: `)) message = message.slice(`line ${lineMatch[1]}: `.length);
  if (error?.cause instanceof Error && code === "SUMMARIZER_FAILED" && !message.includes(error.cause.message)) {
    message += ` (${error.cause.message})`;
  }
  return { code, path, line: lineMatch ? Number(lineMatch[1]) : null, message };
}

/** One stderr line: `context-compaction: FILE: CODE at PATH: what is wrong`. */
export function formatError(error, file) {
  const { code, path, message } = describeError(error);
  const head = [file, code && code !== "USAGE" ? `${code}${path ? ` at ${path}` : ""}` : path].filter(Boolean);
  return `context-compaction: ${head.length ? `${head.join(": ")}: ` : ""}${message}`;
}
