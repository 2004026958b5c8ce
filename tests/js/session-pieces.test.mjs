// Session.fromJSONL and Session.fromSessionFile given an iterable of strings (pieces cut anywhere:
// between the halves of a surrogate pair, after any character) read the same session as the whole
// text: the same log byte for byte, the same live context, the same torn line and warnings.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CompactionError, Session } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const options = { contextWindow: 200_000, summarize: "extractive" };

/** `text` cut every `size` UTF-16 units (so inside surrogate pairs too), as a generator. */
function* cut(text, size) {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** The same, cut at each index of `at` (sorted), as an array. */
function cutAt(text, at) {
  const out = [];
  let from = 0;
  for (const i of at) {
    out.push(text.slice(from, i));
    from = i;
  }
  out.push(text.slice(from));
  return out;
}

const same = (a, b) => {
  assert.equal(a.toJSONL(), b.toJSONL());
  assert.deepEqual(a.render({}).messages, b.render({}).messages);
  assert.deepEqual(a.entries(), b.entries());
  assert.deepEqual(a.tornLine, b.tornLine);
};

// Emoji (surrogate pairs), accented and CJK characters, a lone surrogate (written by
// JSON.stringify as an escape), in a log of several lines.
const session = new Session({ ...options, format: "ai-sdk" });
session.append([
  { role: "user", content: "héllo 😀 wörld 漢字 🎉🎉" },
  { role: "assistant", content: "réponse 😀 with a cut half: \ud83d and more 🧪" },
  { role: "user", content: "🎉".repeat(50) },
]);
const log = session.toJSONL();
session.free();

test("fromJSONL over pieces cut inside surrogate pairs and after every character reads the whole log", () => {
  const whole = Session.fromJSONL(log, options);
  assert.equal(whole.toJSONL(), log);
  // Cut right between the halves of each surrogate pair.
  const pairs = [];
  for (let i = 1; i < log.length; i++) {
    const c = log.charCodeAt(i - 1);
    if (c >= 0xd800 && c <= 0xdbff) pairs.push(i);
  }
  assert.ok(pairs.length > 50);
  for (const pieces of [cut(log, 1), cut(log, 2), cut(log, 3), cut(log, 1000), cutAt(log, pairs), [log], ["", log, ""]]) {
    const read = Session.fromJSONL(pieces, options);
    same(read, whole);
    read.free();
  }
  whole.free();
});

test("fromJSONL over pieces: a torn last line is left out, or refused with strict, as in the whole text", () => {
  const torn = `${log}{"type":"message","id":"x","parentId":null,"message":{"role":"user","content":"😀 cu`;
  const whole = Session.fromJSONL(torn, options);
  assert.equal(whole.tornLine.line, 5);
  for (const size of [1, 2, 7]) {
    const read = Session.fromJSONL(cut(torn, size), options);
    same(read, whole);
    read.free();
    assert.throws(
      () => Session.fromJSONL(cut(torn, size), { ...options, strict: true }),
      (e) => e instanceof CompactionError && e.code === "INVALID_INPUT" && /^lines\[4\]/.test(e.path),
    );
  }
  whole.free();
  // An empty iterable, like "", is an empty session.
  const empty = Session.fromJSONL([], options);
  assert.equal(empty.toJSONL(), "");
  empty.free();
});

test("fromSessionFile over pieces reads the pi and Claude Code files as the whole text", () => {
  for (const [kind, rel] of [
    ["pi", "pi/large-session.jsonl"],
    ["claude-code", "claude-code/tool_heavy.jsonl"],
  ]) {
    const text = fixtureText(rel);
    const whole = Session.fromSessionFile(text, kind, options);
    const cutText = text.slice(0, text.length - 30);
    const warned = [];
    const tornWhole = Session.fromSessionFile(cutText, kind, options, { onWarning: (w) => warned.push(w) });
    assert.equal(warned.length, 1);
    for (const size of [1, 5, 4096]) {
      const read = Session.fromSessionFile(cut(text, size), kind, options);
      same(read, whole);
      read.free();
      const seen = [];
      const torn = Session.fromSessionFile(cut(cutText, size), kind, options, { onWarning: (w) => seen.push(w) });
      same(torn, tornWhole);
      assert.deepEqual(seen, warned);
      torn.free();
    }
    tornWhole.free();
    whole.free();
  }
});

test("anything but a string or an iterable of strings is INVALID_INPUT naming it", () => {
  const invalid = (path) => (e) => e instanceof CompactionError && e.code === "INVALID_INPUT" && e.path === path;
  assert.throws(() => Session.fromJSONL(42, options), invalid("text"));
  assert.throws(() => Session.fromJSONL({ text: log }, options), invalid("text"));
  assert.throws(() => Session.fromJSONL([log.slice(0, 10), 7], options), invalid("text[1]"));
  assert.throws(() => Session.fromSessionFile([fixtureText("pi/large-session.jsonl"), null], "pi", options), invalid("text[1]"));
  // An error thrown by the iterable itself reaches the caller as it is.
  const boom = new Error("read failed");
  const failing = (function* () {
    yield log.slice(0, 100);
    throw boom;
  })();
  assert.throws(() => Session.fromJSONL(failing, options), (e) => e === boom);
});

test("toJSONLPart gives the log in parts of about maxBytes that join into toJSONL", () => {
  const text = fixtureText("pi/large-session.jsonl");
  const session = Session.fromSessionFile(text, "pi", options);
  const whole = session.toJSONL();
  for (const maxBytes of [1, 10_000, undefined]) {
    const parts = [];
    for (let from = 0; from !== null; ) {
      const { text: part, next } = session.toJSONLPart(from, maxBytes);
      assert.ok(next === null || next > from);
      parts.push(part);
      from = next;
    }
    assert.equal(parts.join(""), whole);
    // Each part but the last holds at least maxBytes (1 MiB by default): it ends at the line that
    // reaches it.
    const least = maxBytes ?? 2 ** 20;
    assert.ok(parts.slice(0, -1).every((p) => Buffer.byteLength(p) >= least));
    if (maxBytes === 1) assert.equal(parts.length, session.entries().length);
    if (maxBytes === 10_000) assert.ok(parts.length > 10);
  }
  assert.throws(() => session.toJSONLPart(-1), (e) => e instanceof CompactionError && e.code === "INVALID_INPUT" && e.path === "from");
  // An empty session's log is "" in one part.
  const empty = new Session(options);
  assert.deepEqual(empty.toJSONLPart(0), { text: "", next: null });
  empty.free();
  session.free();
});
