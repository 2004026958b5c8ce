// compact's input read a piece at a time (32 KiB reads), so that memory stays near the Session it
// builds rather than a multiple of the file:
// - a JSON array of messages is split into its elements as it is read; each element is parsed by
//   JSON.parse and appended to the Session in batches, so no text or message object of the whole
//   array is ever held at once (peak: the Session plus one batch);
// - a JSONL session file (pi, Claude Code, a context-compaction log) is told apart by its first
//   line alone (Session.fromJSONL of that line says whether it is a log header) and its pieces are
//   handed to the one reader that fits (Session.fromJSONL or Session.fromSessionFile take an
//   iterable of strings), which reads each line as it completes: the file's text is never held
//   whole (peak: the Session plus a piece); no importSession; a file refused as one agent's is
//   read again, from its start, as the other's;
// - the `{"messages": [...]}` form and one-document files that are not an array are read whole,
//   by load.mjs, as inspect and convert read every file.
// Nothing here reads messages or entries out of a session file by itself.
import { closeSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { Session } from "context-compaction";
import { CliError, EXIT } from "./errors.mjs";
import { loadInput, openSession } from "./load.mjs";

// 32 KiB: each piece's string is under V8's large-object size (128 KiB, two bytes a character at
// worst), so it dies young, in a scavenge, instead of waiting for a full collection.
const CHUNK = 1 << 15;
/**
 * A batch of array elements is appended once it holds this many characters of JSON text (256 Ki:
 * its conversion in the instance, several times its size, is made again and again in the same
 * memory instead of growing it; 4 Mi added about 20 MiB to a 40 MiB array's peak).
 */
const BATCH_CHARS = 256 << 10;
const ARRAY_FORMATS = new Set(["ai-sdk", "openai", "anthropic", "langchain", "pi"]);
const bad = (message, extra) => new CliError(message, EXIT.INPUT, { code: "INVALID_INPUT", ...extra });

/** The pieces of a file (or stdin for "-") as text, 1 MiB at a time. */
function* pieces(file) {
  let fd;
  try {
    fd = file === "-" ? 0 : openSync(file, "r");
  } catch (error) {
    const why = { ENOENT: "no such file", EISDIR: "is a directory", EACCES: "permission denied" }[error.code];
    throw new CliError(why ?? error.message, EXIT.INPUT, { code: error.code ?? null, cause: error });
  }
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.allocUnsafe(CHUNK);
  try {
    for (;;) {
      let read;
      try {
        read = readSync(fd, buffer, 0, CHUNK, null);
      } catch (error) {
        if (error.code === "EAGAIN") continue; // a non-blocking stdin with nothing yet
        if (error.code === "EOF") break;
        const why = { EISDIR: "is a directory" }[error.code];
        throw new CliError(why ?? error.message, EXIT.INPUT, { code: error.code ?? null, cause: error });
      }
      if (read === 0) break;
      const text = decoder.write(buffer.subarray(0, read));
      if (text) yield text;
    }
    const rest = decoder.end();
    if (rest) yield rest;
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

/**
 * Splits a JSON array into the text of its elements as pieces arrive: `onElement(text, line)`
 * with the line the element starts on. Anything but one array (with whitespace around) is
 * INVALID_INPUT naming the line; JSON.parse checks each element.
 */
function splitArray(pieces, onElement) {
  let line = 1;
  let opened = false;
  let closed = false;
  let expectElement = true;
  let elements = 0;
  // Inside an element: its nesting, whether in a string (and after a backslash there), and the
  // text of it from earlier pieces.
  let inElement = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let startLine = 1;
  let held = "";
  const fail = (why) => {
    throw bad(`line ${line}: not a JSON array of messages (${why})`, { path: `line ${line}` });
  };
  const end = (text) => {
    onElement(text, startLine);
    elements++;
    inElement = false;
    expectElement = false;
    held = "";
  };
  for (const piece of pieces) {
    let from = 0;
    for (let i = 0; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      if (inElement) {
        if (c === 10) line++;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 92) escaped = true;
          else if (c === 34) inString = false;
          continue;
        }
        if (c === 34) inString = true;
        else if (c === 123 || c === 91) depth++;
        else if ((c === 125 || c === 93) && depth > 0) {
          depth--;
          if (depth === 0) end(held + piece.slice(from, i + 1));
        } else if (c === 93) {
          // A scalar element, then the end of the array.
          end((held + piece.slice(from, i)).trimEnd());
          closed = true;
        } else if (c === 44 && depth === 0) {
          end((held + piece.slice(from, i)).trimEnd());
          expectElement = true;
        }
        continue;
      }
      if (c === 10) {
        line++;
        continue;
      }
      if (c === 32 || c === 13 || c === 9) continue;
      if (closed) fail("text after the closing bracket");
      if (!opened) {
        if (c !== 91) fail("it does not start with [");
        opened = true;
        continue;
      }
      if (c === 93) {
        if (expectElement && elements > 0) fail("a comma before the closing bracket");
        closed = true;
        continue;
      }
      if (c === 44) {
        if (expectElement) fail("an element is missing");
        expectElement = true;
        continue;
      }
      if (!expectElement) fail("a comma is missing");
      inElement = true;
      depth = 0;
      startLine = line;
      from = i;
      held = "";
      // The first character of the element: a string or a container opens here.
      if (c === 34) inString = true;
      else if (c === 123 || c === 91) depth = 1;
    }
    if (inElement) held += piece.slice(from);
  }
  if (inElement || !closed) fail(opened ? "it is cut short" : "the file is empty");
}

/** The index in `messages[i]` of a path or message, moved by `offset`. */
const shifted = (text, offset) => text?.replace(/messages\[(\d+)\]/g, (_, i) => `messages[${Number(i) + offset}]`);

/** Streams a JSON array into a new Session: `{ session, input, before }`. */
function openArray(pieces, forced, optionsFor) {
  let format = ARRAY_FORMATS.has(forced) ? forced : null;
  const session = new Session(optionsFor(format));
  let batch = [];
  let chars = 0;
  let count = 0;
  const flush = () => {
    if (batch.length === 0) return;
    try {
      session.append(batch);
    } catch (error) {
      if (error && typeof error === "object") {
        // Paths and messages name the element's index in the whole array.
        const offset = count - batch.length;
        if (typeof error.path === "string") error.path = shifted(error.path, offset);
        if (typeof error.message === "string") error.message = shifted(error.message, offset);
      }
      throw error;
    }
    // The format the first batch was read in (the session holds only that batch yet).
    format ??= session.render({ cacheControl: false }).format;
    batch = [];
    chars = 0;
  };
  try {
    splitArray(pieces, (text, line) => {
      let value;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw bad(`line ${line}: not valid JSON (${error.message})`, { path: `line ${line}` });
      }
      batch.push(value);
      count++;
      chars += text.length;
      if (chars >= BATCH_CHARS) flush();
    });
    flush();
    if (count === 0) throw bad("the message array is empty: nothing to read");
    return { session, input: { kind: "messages", format }, before: count };
  } catch (error) {
    session.free();
    throw error;
  }
}

/**
 * Opens the Session that compact works on, reading `file` a piece at a time (see above):
 * `{ session, input: { kind, format }, before }`, `before` the live messages. `optionsFor(format)`
 * gives the Session's options for the messages' format (null: detected).
 */
export function openInputSession(file, forced, optionsFor) {
  const source = pieces(file);
  // The pieces up to the first that holds something other than whitespace, then (for JSONL) up
  // to the end of the first line and something after it.
  // (next(), not for-of: leaving a for-of would close the file.)
  const seen = [];
  let done = false;
  const readUntil = (enough) => {
    while (!done && !enough()) {
      const next = source.next();
      if (next.done) done = true;
      else seen.push(next.value);
    }
  };
  readUntil(() => seen.some((piece) => piece.trim()));
  const head = seen.join("").trimStart();
  const rest = function* () {
    while (seen.length > 0) yield seen.shift();
    yield* source;
  };
  const arrayFormat = ARRAY_FORMATS.has(forced) && forced !== "pi";
  try {
    if (head.startsWith("[") || (arrayFormat && head !== "" && !head.startsWith("{"))) return openArray(rest(), forced, optionsFor);
    // The first line, and whether anything but whitespace follows it (each piece scanned once).
    let scanned = 0;
    let newlineAt = -1;
    const after = () => {
      for (; newlineAt < 0 && scanned < seen.length; scanned++) if (seen[scanned].includes("\n")) newlineAt = scanned;
      if (newlineAt < 0) return false;
      const piece = seen[newlineAt];
      return piece.slice(piece.indexOf("\n")).trim() !== "" || seen.slice(newlineAt + 1).some((p) => p.trim());
    };
    readUntil(after);
    const start = newlineAt < 0 ? seen.join("") : seen.slice(0, newlineAt).join("") + seen[newlineAt].slice(0, seen[newlineAt].indexOf("\n"));
    const firstLine = start.replace(/^\ufeff/, "").trim();
    if (!after() || ARRAY_FORMATS.has(forced) || !isJson(firstLine)) {
      // One document (or broken): read whole, the way inspect and convert read every file.
      const whole = [...rest()].join("");
      const input = loadInput(whole, forced);
      const session = openSession(whole, input, optionsFor(input.kind === "messages" ? input.format : null));
      return { session, input: { kind: input.kind, format: input.format }, before: null };
    }
    return openJsonl(file, rest(), firstLine, forced, optionsFor);
  } finally {
    source.return(); // closes the file when reading stopped early (a bad element or line)
  }
}

const READ = { contextWindow: 200_000, summarize: "extractive" };

function isJson(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether `line` is a context-compaction session log's header. */
function isLogHeader(line) {
  try {
    Session.fromJSONL(`${line}\n`, READ).free();
    return true;
  } catch {
    return false;
  }
}

/**
 * A JSONL session read a piece at a time by the one reader its first line names (Session.fromJSONL
 * or Session.fromSessionFile take the pieces): no text of the whole file is held. A file tried as
 * one agent's and refused is read again from the start as the other's (stdin: its pieces are kept
 * for that).
 */
function openJsonl(file, first, firstLine, forced, optionsFor) {
  if (forced === "session" || (!forced && isLogHeader(firstLine))) {
    const session = Session.fromJSONL(first, optionsFor(null));
    return { session, input: { kind: "session", format: JSON.parse(firstLine).format }, before: null };
  }
  const piFirst = /"type"\s*:\s*"session"/.test(firstLine);
  const kinds = forced ? [forced] : piFirst ? ["pi", "claude-code"] : ["claude-code", "pi"];
  const kept = file === "-" && kinds.length > 1 ? [...first] : null;
  let firstError = null;
  for (const [i, kind] of kinds.entries()) {
    const warnings = [];
    let session;
    try {
      const text = kept ?? (i === 0 ? first : pieces(file));
      session = Session.fromSessionFile(text, kind, optionsFor(null), { onWarning: (w) => warnings.push(w) });
    } catch (error) {
      if (forced) throw error;
      if (kind === kinds[0] && !isOtherAgent(error)) firstError = error;
      continue;
    }
    if (session.check().tokens > 0) {
      for (const warning of warnings) process.stderr.write(`context-compaction: warning: ${warning}\n`);
      return { session, input: { kind, format: kind === "pi" ? "pi" : "anthropic" }, before: null };
    }
    session.free();
  }
  if (firstError) throw firstError;
  const why = forced ? `no line holds a ${forced === "pi" ? "pi" : "Claude Code"} message` : "no line holds a session message";
  throw bad(`not a session file or message array: ${why} (expected a pi or Claude Code session JSONL, a context-compaction session log, or a JSON array of messages)`);
}

/** importSession refused the file as the other agent's (or neither's): the reason is in the message. */
const isOtherAgent = (error) => error?.code === "INVALID_INPUT" && /(this is a .*|not a .*) session file/.test(error.message ?? "");
