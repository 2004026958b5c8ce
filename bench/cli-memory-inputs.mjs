// The inputs and the measure of the CLI's memory benchmark (bench/cli-memory.mjs) and its test
// (tests/js/cli-memory.test.mjs): files of a given size made at run time by replicating the
// fixtures of tests/fixtures (never committed), and the peak RSS of one CLI run.
// - "claude-code": the Claude Code fixture's lines, again and again, with each copy's uuids made
//   its own;
// - "pi": the pi fixture's entries (a v1 file) after one header, again and again, each copy's
//   compactions naming their first kept entry in that copy;
// - "session": a context-compaction session log holding the Claude Code fixture's messages
//   (importSession's history), again and again, under fresh entry ids;
// - "array": a JSON array of those messages.
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { importSession } from "../js/node.mjs";

export const root = fileURLToPath(new URL("..", import.meta.url));
export const cli = join(root, "bin/context-compaction.mjs");
const fixture = (path) => readFileSync(join(root, "tests/fixtures", path), "utf8");
const CLAUDE_CODE = "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl";
const PI = "pi/before-compaction.jsonl";

export const KINDS = ["claude-code", "session", "pi", "array"];

/** The lines of one copy `k` of a kind's text (header lines only in copy 0), and the closing text. */
function source(kind) {
  if (kind === "claude-code") {
    const lines = fixture(CLAUDE_CODE).trimEnd().split("\n");
    const own = /"(uuid|parentUuid|leafUuid|messageId)":"([^"]+)"/g;
    return { head: "", copy: (k) => lines.map((l) => (k === 0 ? l : l.replace(own, `"$1":"$2-${k}"`))).join("\n") + "\n", tail: "" };
  }
  if (kind === "pi") {
    // A v1 file: a compaction names its first kept entry by its index in the file (the header
    // at 0), so copy k's indices move by k copies' lines (else every copy's compactions would
    // keep everything from copy 0 on, which pi never writes).
    const [header, ...lines] = fixture(PI).trimEnd().split("\n");
    const index = /"firstKeptEntryIndex":(\d+)/;
    const copy = (k) => lines.map((l) => l.replace(index, (_, i) => `"firstKeptEntryIndex":${Number(i) + k * lines.length}`)).join("\n") + "\n";
    return { head: `${header}\n`, copy, tail: "" };
  }
  const history = importSession(fixture(CLAUDE_CODE), "claude-code").history.map((m) => JSON.stringify(m));
  if (kind === "array") {
    return { head: "[\n", copy: (k) => (k === 0 ? "" : ",\n") + history.join(",\n"), tail: "\n]\n" };
  }
  let n = 0;
  const entry = (m) => {
    const line = `{"type":"message","id":"e${n}","parentId":${n === 0 ? "null" : `"e${n - 1}"`},"message":${m}}`;
    n++;
    return line;
  };
  return {
    head: '{"type":"session","version":1,"id":"generated","format":"anthropic"}\n',
    copy: () => history.map((m) => entry(m)).join("\n") + "\n",
    tail: "",
  };
}

/** Writes a `kind` input of at least `bytes` bytes to `file`; returns its size. */
export function generate(kind, bytes, file) {
  const { head, copy, tail } = source(kind);
  const fd = openSync(file, "w");
  let size = 0;
  const write = (text) => {
    size += writeSync(fd, text);
  };
  try {
    write(head);
    for (let k = 0; size < bytes; k++) write(copy(k));
    write(tail);
  } finally {
    closeSync(fd);
  }
  return size;
}

/** Reports the process's peak RSS (KiB) on stderr as it exits. */
const PEAK = "data:text/javascript," + encodeURIComponent("process.on('exit',()=>process.stderr.write(`\\npeak-rss-kib=${process.resourceUsage().maxRSS}\\n`))");

/** Runs the CLI with `args`: `{ status, stderr, peak }`, `peak` its peak RSS in bytes. */
export function peakRss(args) {
  const r = spawnSync(process.execPath, ["--import", PEAK, cli, ...args], { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 });
  const match = /peak-rss-kib=(\d+)/.exec(r.stderr ?? "");
  return { status: r.status, stderr: r.stderr, peak: match ? Number(match[1]) * 1024 : null };
}
