// Session.fromJSONL is exactly as lenient and as strict as issue 23 asks (core
// `session/loader.rs`): a torn last line is left out and reported (`tornLine`), refused with
// `strict`; a byte-order mark and a lone-surrogate escape written by JSON.stringify are read; a
// parentId cycle, a missing parent and a compaction naming no entry are refused with the line; an
// empty session's log reads back; messages keep the caller's key order through a reload.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Session } from "context-compaction";

const options = { contextWindow: 4_000, reserveTokens: 500, keepRecentTokens: 300, sessionId: "log", summarize: () => "the summary" };

function turn(i) {
  return [
    { role: "user", content: `request ${i} ` + "word ".repeat(120) },
    { role: "assistant", content: `answer ${i} ` + "word ".repeat(120) },
  ];
}

function session(turns = 3) {
  const s = new Session(options);
  for (let i = 0; i < turns; i++) s.append(turn(i));
  return s;
}

function refused(fn, pattern, path) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof CompactionError, String(e));
    assert.equal(e.code, "INVALID_INPUT");
    if (path) assert.equal(e.path, path);
    assert.match(e.message, pattern);
    return true;
  });
}

test("a torn last line is left out and reported; strict refuses it", () => {
  const text = session().toJSONL();
  const lines = text.split("\n").filter(Boolean);
  const last = lines.at(-1);
  const torn = lines.slice(0, -1).join("\n") + "\n" + last.slice(0, last.length >> 1);
  const s = Session.fromJSONL(torn, options);
  assert.equal(s.render().messages.length, 5, "every complete line is read");
  assert.equal(s.tornLine.line, lines.length);
  assert.match(s.tornLine.error, /not valid JSON/);
  assert.equal(Session.fromJSONL(text, options).tornLine, undefined);
  refused(() => Session.fromJSONL(torn, { ...options, strict: true }), /line 7 is not valid JSON/, "lines[6]");
  // A complete but bad last line (it ends with a newline) is refused in either mode.
  refused(() => Session.fromJSONL(torn + "\n", options), /line 7/);
  assert.throws(() => Session.fromJSONL(text, { ...options, strict: "yes" }), { code: "INVALID_OPTIONS", path: "strict" });
});

test("a byte-order mark and a lone surrogate escape written by JSON.stringify are read", () => {
  const text = session(1).toJSONL();
  const s = Session.fromJSONL("\ufeff" + text, options);
  assert.equal(s.render().messages.length, 2);
  const lines = text.split("\n");
  const entry = JSON.parse(lines[1]);
  entry.message.content = "half a pair: \ud800 here";
  lines[1] = JSON.stringify(entry);
  assert.match(lines[1], /\\ud800/, "JSON.stringify escapes the lone surrogate");
  const reloaded = Session.fromJSONL(lines.join("\n"), options);
  assert.equal(reloaded.render().messages.length, 2);
  assert.equal(reloaded.toJSONL(), lines.join("\n"), "the line is kept as written");
});

test("a parentId cycle, a missing parent and a compaction naming no entry are refused with the line", async () => {
  const lines = session().toJSONL().split("\n").filter(Boolean);
  const entry = (n) => JSON.parse(lines[n - 1]);
  // Line 3's parent is line 5's entry: a cycle through a later line.
  const cyclic = lines.slice();
  cyclic[2] = JSON.stringify({ ...entry(3), parentId: entry(5).id });
  refused(() => Session.fromJSONL(cyclic.join("\n") + "\n", options), /line 3: parentId "e4" names a later entry \(line 5\)/, "lines[2].parentId");
  const self = lines.slice();
  self[2] = JSON.stringify({ ...entry(3), parentId: entry(3).id });
  refused(() => Session.fromJSONL(self.join("\n") + "\n", options), /the entry itself/);
  // Line 4 deleted: line 5's parent is gone.
  const missing = lines.filter((_, i) => i !== 3);
  refused(() => Session.fromJSONL(missing.join("\n") + "\n", options), /line 4: parentId "e3" names no entry/, "lines[3].parentId");

  const s = session(6);
  await s.compact({ force: true });
  const compacted = s.toJSONL().split("\n").filter(Boolean);
  const at = compacted.findIndex((l) => JSON.parse(l).type === "compaction");
  const live = Session.fromJSONL(s.toJSONL(), options).render().messages.length;
  assert.equal(live, s.render().messages.length);
  const dangling = compacted.slice();
  dangling[at] = JSON.stringify({ ...JSON.parse(dangling[at]), firstKeptEntryId: "nowhere" });
  refused(() => Session.fromJSONL(dangling.join("\n") + "\n", options), new RegExp(`line ${at + 1}: the compaction's firstKeptEntryId names entry "nowhere"`), `lines[${at}].firstKeptEntryId`);
});

test("an empty session's log reads back as an empty session", () => {
  const empty = new Session(options);
  const text = empty.toJSONL();
  const back = Session.fromJSONL(text, options);
  assert.deepEqual(back.render().messages, []);
  back.append(turn(0));
  assert.equal(Session.fromJSONL(back.toJSONL(), options).render().messages.length, 2);
  assert.equal(Session.fromJSONL("\ufeff\n", options).render().messages.length, 0);
});

test("messages keep the caller's key order through a reload (issue 26)", () => {
  const s = new Session(options);
  s.append([
    { role: "user", content: "hi", zeta: 1, alpha: { z: 1, a: 2 } },
    { content: [{ type: "text", text: "hello", providerOptions: { z: 1, a: 1 } }], role: "assistant" },
  ]);
  const before = JSON.stringify(s.render().messages);
  const after = JSON.stringify(Session.fromJSONL(s.toJSONL(), options).render().messages);
  assert.equal(after, before);
});
