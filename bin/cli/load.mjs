// Reading an input file and telling what it is, by the package's own readers: importSession (pi,
// Claude Code), Session.fromJSONL and Session.entries (the package's session log), Session.append
// (message arrays, whose format the package detects). Nothing here reads messages or entries out
// of a session file by itself; JSON.parse only tells a JSON document from JSONL.
import { readFileSync } from "node:fs";
import { importSession, Session } from "context-compaction";
import { CliError, EXIT } from "./errors.mjs";

/** Options a session needs to be read; the window plays no part in reading. */
const READ = { contextWindow: 200_000, summarize: "extractive" };
const ARRAY_FORMATS = new Set(["ai-sdk", "openai", "anthropic", "langchain", "pi"]);
const JSONL_KINDS = new Set(["pi", "claude-code", "session"]);

export const KIND_NAMES = {
  pi: "pi session (JSONL)",
  "claude-code": "Claude Code session (JSONL)",
  session: "context-compaction session log (JSONL)",
  messages: "JSON array of messages",
};

const bad = (message, extra) => new CliError(message, EXIT.INPUT, { code: "INVALID_INPUT", ...extra });

/** The file's text; "-" is stdin. A missing file is exit 1. */
export function readInput(file) {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    const why = { ENOENT: "no such file", EISDIR: "is a directory", EACCES: "permission denied" }[error.code];
    throw new CliError(why ?? error.message, EXIT.INPUT, { code: error.code ?? null, cause: error });
  }
}

function lineAt(text, position) {
  let line = 1;
  for (let i = 0; i < position && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** JSON.parse with its failure as INVALID_INPUT naming the line. */
function parseJson(text, forced) {
  try {
    return JSON.parse(text);
  } catch (error) {
    const byLine = /line (\d+)/.exec(error.message);
    const byPosition = /position (\d+)/.exec(error.message);
    const line = byLine ? Number(byLine[1]) : byPosition ? lineAt(text, Number(byPosition[1])) : lineAt(text, text.trimEnd().length);
    const hint = forced ? `; --format ${forced} reads a JSON array of messages` : "";
    throw bad(`line ${line}: not valid JSON (${error.message})${hint}`, { path: `line ${line}` });
  }
}

function fromMessages(messages, format) {
  if (messages.length === 0) throw bad("the message array is empty: nothing to read");
  const session = new Session({ ...READ, ...(format ? { format } : {}) });
  try {
    session.append(messages);
    return { kind: "messages", format: session.render({ cacheControl: false }).format, live: messages, rawCount: messages.length, compactions: [] };
  } finally {
    session.free();
  }
}

function fromSessionLog(text) {
  const session = Session.fromJSONL(text, READ);
  try {
    const { messages, format } = session.render({ cacheControl: false });
    const entries = session.entries();
    // Line numbers of the entries as the reader counts them (blank lines skipped; the header first).
    const numbers = [];
    text.split("\n").forEach((l, i) => l.trim() && numbers.push(i + 1));
    const compactions = [];
    entries.forEach((entry, i) => {
      if (entry.type !== "compaction") return;
      compactions.push({
        line: numbers[i + 1] ?? null,
        id: entry.id,
        tokensBefore: entry.tokensBefore,
        tokensAfter: entry.tokensAfter,
        round: entry.round,
        trigger: null,
        summary: entry.summary ?? "",
      });
    });
    const rawCount = entries.filter((e) => e.type === "message").length;
    return { kind: "session", format, live: messages, rawCount, compactions };
  } finally {
    session.free();
  }
}

function fromAgentFile(imported, kind) {
  return {
    kind,
    format: imported.format,
    live: imported.messages,
    rawCount: imported.history.length,
    compactions: imported.compactions.map((c, i) => ({
      line: c.line,
      id: c.id,
      tokensBefore: c.tokensBefore,
      tokensAfter: null,
      round: null,
      trigger: c.trigger,
      summary: c.summary,
      // The messages this summary replaced: from the previous summary (or the start) to the boundary.
      replaced: imported.history.slice(imported.compactions[i - 1]?.summaryIndex ?? 0, c.atMessage),
    })),
  };
}

/** An agent file read up to its last complete line says so on stderr (the report stays on stdout). */
const reportWarnings = (warnings) => {
  for (const warning of warnings ?? []) process.stderr.write(`context-compaction: warning: ${warning}\n`);
};

/** importSession refused the file as the other agent's (or neither's): the reason is in the message. */
const isOtherAgent = (error) => error?.code === "INVALID_INPUT" && /(this is a .*|not a .*) session file/.test(error.message ?? "");

const notASession = (why) =>
  bad(`not a session file or message array: ${why} (expected a pi or Claude Code session JSONL, a context-compaction session log, or a JSON array of messages)`);

/** A JSONL session: the package's own log, else pi or Claude Code (the first line's header decides the order tried). */
function fromJsonl(text, forced) {
  if (forced === "session") return fromSessionLog(text);
  if (!forced) {
    try {
      return fromSessionLog(text);
    } catch (error) {
      // Rejected at its first line: not a session log. Anything later: a log with a bad line.
      if (!/^lines\[0\]/.test(error?.path ?? "")) throw error;
    }
  }
  const piFirst = /^\s*\{[^\n]*"type"\s*:\s*"session"/.test(text);
  const kinds = forced ? [forced] : piFirst ? ["pi", "claude-code"] : ["claude-code", "pi"];
  let firstError = null;
  for (const kind of kinds) {
    try {
      const imported = importSession(text, kind);
      if (imported.history.length > 0) {
        reportWarnings(imported.warnings);
        return fromAgentFile(imported, kind);
      }
    } catch (error) {
      // Forced, the importer's reason is the answer (a Claude Code file read as pi says so).
      if (forced) throw error;
      if (kind === kinds[0] && !isOtherAgent(error)) firstError = error;
    }
  }
  if (firstError) throw firstError;
  if (forced) throw notASession(`no line holds a ${forced === "pi" ? "pi" : "Claude Code"} message`);
  throw notASession("no line holds a session message");
}

/**
 * What a file holds: `{ kind, format, live, rawCount, compactions }` where `kind` is `pi`,
 * `claude-code`, `session` or `messages`, `format` the messages' format and `live` the messages the
 * agent would send now. Exit 1 for anything that is not a session or message array.
 */
export function loadInput(text, forced) {
  const trimmed = text.trim();
  if (!trimmed) throw notASession("the file is empty");
  const arrayFormat = ARRAY_FORMATS.has(forced) ? forced : null;
  if (forced && !arrayFormat && !JSONL_KINDS.has(forced)) throw bad(`unknown format ${forced}`);
  // One JSON document (JSON.parse of JSONL fails at its second line, quickly), else JSONL.
  let parsed = false;
  let value;
  if (trimmed.startsWith("[") || (arrayFormat && forced !== "pi")) {
    value = parseJson(text, arrayFormat);
    parsed = true;
  } else {
    try {
      value = JSON.parse(text);
      parsed = true;
    } catch {
      /* JSONL, or broken: the session readers name the line */
    }
  }
  if (parsed) {
    const messages = Array.isArray(value) ? value : value?.messages;
    if (Array.isArray(messages)) {
      if (forced && !arrayFormat) throw bad(`--format ${forced} reads JSONL session files; this file holds a JSON array of messages`);
      return fromMessages(messages, arrayFormat);
    }
    const oneLine = value !== null && typeof value === "object" && !trimmed.includes("\n");
    if (!oneLine) {
      throw notASession(value !== null && typeof value === "object" ? 'a JSON object without a "messages" array' : `a JSON ${value === null ? "null" : typeof value}`);
    }
    // A one-line JSONL file: read as a session below.
  }
  return fromJsonl(text, forced);
}

/** The fields every command's report starts with (docs/cli.md, `--json`). */
export function reportHead(command, file, input) {
  return { command, ok: true, file, input: { kind: input.kind, format: input.format } };
}

/** A Session holding the input, to compact: the agent file's compactions kept, a log continued. */
export function openSession(text, input, options) {
  switch (input.kind) {
    case "pi":
    case "claude-code":
      // loadInput has already reported what reading left out.
      return Session.fromSessionFile(text, input.kind, options, { onWarning: () => {} });
    case "session":
      return Session.fromJSONL(text, options);
    default: {
      const session = new Session({ ...options, format: input.format });
      session.append(input.live);
      return session;
    }
  }
}
