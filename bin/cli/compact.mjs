// compact: a forced compaction through Session.compact, the result written as the session's JSONL
// log (Session.toJSONL(), or for a file its parts, Session.toJSONLPart, one at a time). The
// command's input is read a piece at a time (stream.mjs).
import { closeSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { estimateTokens } from "context-compaction";
import { CliError, EXIT } from "./errors.mjs";
import { KIND_NAMES, loadInput, openSession, reportHead } from "./load.mjs";
import { progressBar } from "./progress.mjs";
import { openInputSession } from "./stream.mjs";
import { compactorOptions, describeSettings } from "./settings.mjs";
import { summarizerFor } from "./summarizer.mjs";
import { change, fields, keptText, lostLines, num } from "./text.mjs";

/**
 * Compacts the session in `text`: `{ report, log }`, `log` the new session log. Rejects with the
 * package's CompactionError when the summary fails (nothing is written then).
 */
export async function compactText(text, file, values, { stream = process.stderr } = {}) {
  const input = loadInput(text, values.format);
  return compactOpened(file, values, stream, (optionsFor) => ({
    session: openSession(text, input, optionsFor(input.kind === "messages" ? input.format : null)),
    input,
    before: null,
  }));
}

/**
 * `compactText` of a file read a piece at a time (stream.mjs): what `compact <file>` runs, so
 * that a large input is never held whole. With `write`, the log is not returned: `write(pieces)`
 * gets its parts (an iterable of strings, read from the Session one at a time) once the
 * compaction succeeded, and returns the bytes it wrote.
 */
export async function compactFile(file, values, { stream = process.stderr, write = null } = {}) {
  return compactOpened(file, values, stream, (optionsFor) => openInputSession(file, values.format, optionsFor), write);
}

/**
 * The session's log in parts of about 32 KiB (Session.toJSONLPart), read one at a time: each
 * part's string stays under V8's large-object size, so it dies young once written.
 */
function* logParts(session) {
  for (let from = 0; from !== null; ) {
    const { text, next } = session.toJSONLPart(from, PART_BYTES);
    yield text;
    from = next;
  }
}

const PART_BYTES = 1 << 15;

async function compactOpened(file, values, stream, open, write = null) {
  const { summarize, name } = summarizerFor(values);
  const progress = progressBar(stream);
  let settings = null;
  const optionsFor = (format) => {
    const options = compactorOptions(values, format);
    settings = describeSettings(values, options);
    Object.assign(options, { summarize });
    if (values.retries !== undefined) options.retries = values.retries;
    if (progress.onProgress) options.onProgress = progress.onProgress;
    return options;
  };
  const { session, input, before: counted } = open(optionsFor);
  try {
    const before = counted ?? session.render({ cacheControl: false }).messages.length;
    progress.start();
    let result;
    try {
      result = await session.compact({ force: true, ...(values.instructions ? { instructions: values.instructions } : {}) });
    } finally {
      progress.end();
    }
    const summary = result.summary ?? "";
    const report = {
      ...reportHead("compact", file, input),
      settings,
      summarizer: name,
      compacted: result.compacted,
      warnings: result.warnings ?? [],
      messages: { before, after: result.messages.length },
      tokens: { before: result.tokensBefore, after: result.tokensAfter },
      round: result.round,
      summaryChars: summary.length,
      summaryTokens: estimateTokens(summary),
      retention: result.digest?.retention ?? null,
      entryId: result.entryId,
      out: values.out ?? null,
      bytes: 0,
    };
    if (write) {
      report.bytes = write(logParts(session));
      return { report, log: null };
    }
    const log = session.toJSONL();
    report.bytes = Buffer.byteLength(log);
    return { report, log };
  } finally {
    session.free();
  }
}

/**
 * Writes the log (a string, or an iterable of its parts) where --out says (nothing without it),
 * through a temporary file beside it and a rename, so a failure leaves the old file whole; returns
 * the log's size in bytes. `input` (the file read): --out naming it, or a link to it, is refused
 * unless `force` (it would replace the session with its compacted log). A symbolic link at --out
 * stays a link: its target is replaced.
 */
export function writeLog(log, out, { input = null, force = false } = {}) {
  const parts = typeof log === "string" ? [log] : log;
  let bytes = 0;
  if (out === undefined || out === null) {
    for (const part of parts) bytes += Buffer.byteLength(part);
    return bytes;
  }
  if (out === "-") {
    for (const part of parts) {
      bytes += Buffer.byteLength(part);
      process.stdout.write(part);
    }
    return bytes;
  }
  checkOut(out, { input, force });
  const existing = statOrNull(out);
  const target = existing === null ? out : realpathSync(out);
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  try {
    const fd = openSync(temporary, "wx", existing?.mode ?? 0o644);
    try {
      for (const part of parts) bytes += writeSync(fd, part);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new CliError(`cannot write ${out}: ${error.message}`, EXIT.INPUT, { code: error.code ?? null, cause: error });
  }
  return bytes;
}

/** Refuses --out naming the input file (or a link to it) unless `force`; call it before working. */
export function checkOut(out, { input = null, force = false } = {}) {
  if (force || out === undefined || out === null || out === "-" || input === null || input === "-") return;
  const existing = statOrNull(out);
  const read = existing && statOrNull(input);
  if (read && read.dev === existing.dev && read.ino === existing.ino) {
    throw new CliError(
      `--out ${out} is the input file${out === input ? "" : ` ${input} (the same file through a link)`}: ` +
        "it would be replaced by the compacted log; pick another path, or pass --force to replace it",
      EXIT.USAGE,
      { code: "OUT_IS_INPUT" },
    );
  }
}

function statOrNull(path) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

const UNWRITTEN = "nothing (pass --out FILE to write the session log, --out - for stdout)";

/** The report as text; `unwritten` says why nothing was written without --out. */
export function formatCompact(r, unwritten = UNWRITTEN) {
  const head = `${r.compacted ? "compacted" : "nothing compacted in"} ${r.file} (${KIND_NAMES[r.input.kind]}, ${r.input.format} messages)`;
  const rows = [["summarizer", r.summarizer]];
  if (r.compacted) {
    rows.push(
      ["messages", `${num(r.messages.before)} → ${num(r.messages.after)} live`],
      ["tokens", change(r.tokens.before, r.tokens.after)],
      ["round", num(r.round)],
      ["summary", `${num(r.summaryChars)} characters, ~${num(r.summaryTokens)} tokens`],
      ["facts kept", keptText(r.retention)],
    );
  } else {
    rows.push(["why", r.warnings.join("; ") || "nothing to compact"], ["messages", `${num(r.messages.before)} live, unchanged`]);
  }
  if (r.out === null) rows.push(["written", unwritten]);
  else rows.push(["written", `${r.out === "-" ? "stdout" : r.out}: context-compaction session log, ${num(r.bytes)} bytes`]);
  const lost = r.compacted ? lostLines(r.retention) : [];
  return `${head}\n${fields(rows)}${lost.length ? `\nlost by the summary:\n${lost.join("\n")}` : ""}`;
}
